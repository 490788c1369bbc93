import { Goal, type GoalInput, newId, ReinError, type ReinRuntime, type RunState, unpricedModels, zeroUsage } from "@rein/core";

export interface SubmitOptions {
  /** Tool names this deployment knows (a trailing `*` matches a prefix); a goal naming another is refused. */
  knownTools: readonly string[];
  runId?: string;
  now?: Date;
}

/**
 * Validates a goal, creates its run and enqueues `goal.submitted`. A goal
 * that is empty, too long, or names an unknown tool is refused here with a
 * `goal_invalid` error, and nothing is written or enqueued.
 */
export async function submitGoal(runtime: ReinRuntime, input: GoalInput, options: SubmitOptions): Promise<{ runId: string; state: RunState }> {
  const parsed = Goal.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `goal.${issue.path.join(".")}` : "goal";
    throw new ReinError("goal_invalid", `${where}: ${issue?.message ?? "invalid"}`, { cause: parsed.error });
  }
  const goal = parsed.data;
  const known = new Set(options.knownTools);
  const prefixes = options.knownTools.filter((name) => name.endsWith("*")).map((name) => name.slice(0, -1));
  const unknown = goal.tools.map((grant) => grant.name).filter((name) => !known.has(name) && !prefixes.some((prefix) => name.startsWith(prefix)));
  if (unknown.length > 0) {
    throw new ReinError("goal_invalid", `goal.tools names ${unknown.join(", ")}, which this deployment does not know; expected some of: ${[...known].sort().join(", ")}`);
  }
  const now = (options.now ?? new Date()).toISOString();
  const runId = options.runId ?? newId("run");
  const state = newRunState(goal, runId, now);
  await runtime.runs.create(state);
  await runtime.trace.append({
    runId,
    kind: "run.submitted",
    ts: now,
    payload: { goal: goal.text, tools: goal.tools.map((grant) => grant.name), budget: goal.budget, unpriced: unpricedFor(runtime, goal) },
  });
  await runtime.queues.sendControl({ type: "goal.submitted", eventId: `submitted-${runId}`, runId });
  return { runId, state };
}

/**
 * The billed models this run's roles use with no known price: their calls
 * count $0 against the cost budget, which the run says at its start.
 */
function unpricedFor(runtime: ReinRuntime, goal: Goal): string[] {
  const roles = Object.fromEntries(
    Object.entries(runtime.config.roles).map(([role, choice]) => {
      const override = goal.models[role as keyof typeof goal.models];
      return [role, override ? { provider: override.provider, model: override.model ?? choice.model } : choice];
    }),
  );
  return unpricedModels(runtime.config, roles).map((entry) => `${entry.provider}/${entry.model} (${entry.roles.join(", ")})`);
}

/** A run as it starts: planning, nothing spent, nothing applied yet. */
export function newRunState(goal: Goal, runId: string, now: string): RunState {
  return {
    schemaVersion: 1,
    runId,
    version: 0,
    status: "planning",
    goal,
    createdAt: now,
    updatedAt: now,
    plan: null,
    planCount: 0,
    steps: [],
    evidence: [],
    pendingApprovals: [],
    spent: { steps: 0, tokens: 0, costUsd: 0 },
    usage: zeroUsage(),
    verdicts: [],
    lessonsUsed: [],
    appliedEvents: [],
    outbox: [],
  };
}
