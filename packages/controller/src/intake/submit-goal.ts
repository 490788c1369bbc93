import { Goal, newId, ReinError, zeroUsage } from "@rein/contracts";
import type { RunState } from "@rein/contracts/run";
import type { TraceEventInput } from "@rein/trace";
import { queuedRunEvents, type RunEvents } from "@rein/consumer";
import { unpricedModels } from "@rein/models";
import type { ReinRuntime } from "@rein/runtime";
import { UNSANDBOXED_WARNING } from "@rein/sandbox";
import { knownToolNames } from "../roles/tooling.ts";
import { announcedStepTools } from "../roles/worker-status-board.ts";
import { prepareWorkspace } from "../workspace/prepare-workspace.ts";
import { resolveSeed } from "../workspace/seed-path.ts";
import type { WorkspaceOrigin } from "../workspace/workspace-origin.ts";

export interface SubmitOptions {
  /**
   * Tool names this deployment knows (a trailing `*` matches a prefix); a goal naming another is refused unless a running step worker announces it.
   * @defaultValue the config's: the built-in tools, `tools.extra`, the plugins' and MCP servers' tools
   */
  knownTools?: readonly string[];
  /** MCP servers that failed to start: a goal granting one of their tools is refused with the reason. */
  unavailableMcp?: ReadonlyArray<{ server: string; reason: string }>;
  runId?: string;
  now?: Date;
  /**
   * A directory on this machine the run works on (a worktree or copy of it).
   * Only for callers acting for the machine's user, such as the CLI; a goal
   * from elsewhere names a seed under `seedsRoot` instead.
   */
  workspaceDir?: string;
  /** With `workspaceDir` in a git repository: copy its uncommitted changes in instead of refusing. */
  includeDirty?: boolean;
  /**
   * Where the run's `goal.submitted` goes: applied here, in a process that
   * holds the packet key (`intakeEvents`: its first plan goes
   * straight to the plan queue), or by default to the control queue.
   */
  events?: RunEvents;
}

export interface Submitted {
  runId: string;
  state: RunState;
  /** Where the run's workspace came from, when it started from a directory or seed. */
  origin?: WorkspaceOrigin;
}

/**
 * Validates a goal, creates its run and sends `goal.submitted`. Where
 * `options.events` applies events in place, the run is created with the
 * event applied, in one write; otherwise a crash between the two leaves a
 * run that no one took in, which the re-drive sweep submits again. A goal
 * that is empty, too long, or names an unknown tool is refused here with a
 * `goal_invalid` error, and nothing is written or enqueued. The input is
 * parsed here, once, whether it came from a flag, a file or an HTTP body.
 */
export async function submitGoal(runtime: ReinRuntime, input: unknown, options: SubmitOptions = {}): Promise<Submitted> {
  if (typeof input === "object" && input !== null && "workspaceSeed" in input) {
    throw new ReinError(
      "goal_invalid",
      "goal.workspaceSeed is no longer accepted; expected goal.workspace, the name of a seed under the deployment's seedsRoot",
    );
  }
  const parsed = Goal.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `goal.${issue.path.join(".")}` : "goal";
    throw new ReinError("goal_invalid", `${where}: ${issue?.message ?? "invalid"}`, { cause: parsed.error });
  }
  const goal = parsed.data;
  await refuseUnknownTools(runtime, goal, options.knownTools ?? knownToolNames(runtime.config, []));
  for (const { server, reason } of options.unavailableMcp ?? []) {
    const granted = goal.tools.map((grant) => grant.name).filter((name) => name.startsWith(`${server}__`));
    if (granted.length > 0) {
      throw new ReinError(
        "goal_invalid",
        `goal.tools grants ${granted.join(", ")} of MCP server ${server}, which is not available: ${reason}`,
      );
    }
  }
  if (goal.workspace && options.workspaceDir)
    throw new ReinError("goal_invalid", "goal.workspace and a workspace directory were both given; expected one");
  const now = (options.now ?? new Date()).toISOString();
  const runId = options.runId ?? newId("run");
  const source = goal.workspace ? await resolveSeed(runtime.config.seedsRoot, goal.workspace) : options.workspaceDir;
  const origin = source
    ? await prepareWorkspace({
        source,
        workspaceRoot: runtime.config.workspaceRoot,
        runId,
        includeDirty: options.includeDirty,
        now: options.now,
      })
    : undefined;
  const state = newRunState(goal, runId, now);
  const submitted: TraceEventInput = {
    runId,
    kind: "run.submitted",
    ts: now,
    payload: {
      goal: goal.text,
      tools: goal.tools.map((grant) => grant.name),
      budget: goal.budget,
      unpriced: unpricedFor(runtime, goal),
      ...(origin ? { workspace: { kind: origin.kind, source: origin.source, branch: origin.branch ?? null } } : {}),
    },
  };
  const unsandboxed: TraceEventInput[] =
    runtime.config.sandbox === "none" ? [{ runId, kind: "sandbox.disabled", ts: now, payload: { warning: UNSANDBOXED_WARNING } }] : [];
  const first = [submitted, ...unsandboxed].map((event) => runtime.trace.encode(event));
  const event = { type: "goal.submitted", eventId: `submitted-${runId}`, runId } as const;
  // The run and its first events in one write: a run is never seen without them. Where the event is applied
  // in place, it is applied in that same write.
  if (options.events?.start) {
    await options.events.start(state, event, first);
  } else {
    await runtime.runs.create(state, { events: first, ttlSeconds: runtime.trace.ttlSeconds });
    await (options.events ?? queuedRunEvents(runtime)).apply(event);
  }
  runtime.logger.info({ runId, tools: goal.tools.length, workspace: origin?.kind ?? null }, "run submitted");
  return { runId, state, origin };
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

/**
 * A goal may grant what the deployment knows, and what a running step
 * worker announces it carries from the user's modules: the submitter loads
 * no user code to learn those names.
 */
async function refuseUnknownTools(runtime: ReinRuntime, goal: Goal, knownTools: readonly string[]): Promise<void> {
  const known = new Set(knownTools);
  const prefixes = knownTools.filter((name) => name.endsWith("*")).map((name) => name.slice(0, -1));
  const unlisted = goal.tools
    .map((grant) => grant.name)
    .filter((name) => !known.has(name) && !prefixes.some((prefix) => name.startsWith(prefix)));
  if (unlisted.length === 0) return;
  const announced = await announcedStepTools(runtime);
  const unknown = unlisted.filter((name) => !announced.has(name));
  if (unknown.length === 0) return;
  throw new ReinError(
    "goal_invalid",
    `goal.tools names ${unknown.join(", ")}, which this deployment does not know; expected some of: ${[...known, ...announced].sort().join(", ")} ` +
      "(a tool of the step workers' own modules is known once a running step worker carries it, or config tools.extra names it)",
  );
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
