import { newId, ReinError } from "@rein/core";
import { loadExample } from "../examples/load-example.ts";
import { submitGoal } from "../intake/submit-goal.ts";
import { CONTROLLER_SEEN_SECONDS, controllerSeenRecently } from "../roles/controller-heartbeat.ts";
import { knownToolNames } from "../roles/tooling.ts";
import { answerLines } from "./answer-lines.ts";
import { contextFlags, openContext } from "./cli-context.ts";
import type { Command } from "./commands.ts";
import { goalFromCli, workspaceFlags } from "./goal-input.ts";
import { err, out } from "./output.ts";

async function withContext<T>(flags: Record<string, unknown>, body: (context: Awaited<ReturnType<typeof openContext>>) => Promise<T>): Promise<T> {
  const context = await openContext({ ...contextFlags(flags) });
  try {
    return await body(context);
  } finally {
    await context.close();
  }
}

const requireArg = (positionals: string[], what: string, usage: string): string => {
  const value = positionals[0];
  if (!value) throw new ReinError("goal_invalid", `expected ${what}: rein ${usage}`);
  return value;
};

export const submitCommand: Command = {
  name: "submit",
  usage: 'submit "<goal>" [--example NAME] [--tools a,b] [--workspace DIR [--include-dirty]]',
  summary: "put a goal on the queue for running roles and print its run id",
  options: { example: { type: "string" }, tools: { type: "string" }, workspace: { type: "string" }, "include-dirty": { type: "boolean" } },
  run: (positionals, flags) =>
    withContext(flags, async (context) => {
      const example = typeof flags.example === "string" ? await loadExample(flags.example) : undefined;
      const goal = goalFromCli(positionals[0], example, flags.tools as string | undefined);
      const { runId } = await submitGoal(context.runtime, goal, {
        knownTools: knownToolNames(context.config, example?.tools ?? []),
        ...workspaceFlags(flags, example),
      });
      out(runId);
      if (!(await controllerSeenRecently(context.runtime))) {
        err(
          `rein submit: warning: no controller has been seen on prefix ${context.config.prefix} in the last ${CONTROLLER_SEEN_SECONDS} s; ` +
            `the run waits until one starts (rein serve, or rein worker --role control, with the same Redis and prefix)`,
        );
      }
      return 0;
    }),
};

export const statusCommand: Command = {
  name: "status",
  usage: "status <runId> [--json]",
  summary: "print a run's status, steps and spend",
  options: { json: { type: "boolean" } },
  run: (positionals, flags) =>
    withContext(flags, async (context) => {
      const state = await context.runtime.runs.require(requireArg(positionals, "a run id", "status <runId>"));
      if (flags.json) {
        out(JSON.stringify(state, null, 2));
        return 0;
      }
      out(`run ${state.runId}: ${state.status}${state.stopReason ? ` (${state.stopReason})` : ""}`);
      out(`goal: ${state.goal.text}`);
      for (const step of state.steps) out(`  ${step.stepId} [${step.phase}] attempt ${step.attempt}: ${step.spec.title}${step.decision ? ` → ${step.decision}` : ""}`);
      if (state.pendingApprovals.length > 0) out(`waiting for approval: ${state.pendingApprovals.join(", ")}`);
      out(`spent: ${state.spent.steps} steps, ${state.spent.tokens} tokens, $${state.spent.costUsd.toFixed(4)}`);
      for (const line of state.result ? answerLines(state.result) : []) out(line);
      if (state.result?.partial && state.result.missing.length > 0) out(`missing: ${state.result.missing.join("; ")}`);
      return 0;
    }),
};

export const cancelCommand: Command = {
  name: "cancel",
  usage: "cancel <runId> [--reason TEXT]",
  summary: "cancel a run; it ends with what it has",
  options: { reason: { type: "string" } },
  run: (positionals, flags) =>
    withContext(flags, async (context) => {
      const runId = requireArg(positionals, "a run id", "cancel <runId>");
      await context.runtime.runs.require(runId);
      await context.runtime.queues.sendControl({
        type: "run.cancel",
        eventId: `cancel-${runId}`,
        runId,
        reason: (flags.reason as string | undefined) ?? `cancelled by ${process.env.USER ?? "a person"}`,
      });
      out(`cancel requested for ${runId}`);
      return 0;
    }),
};

export const replyCommand: Command = {
  name: "reply",
  usage: 'reply <runId> "<instruction>"',
  summary: "answer an escalated run; it resumes through the planner",
  options: {},
  run: (positionals, flags) =>
    withContext(flags, async (context) => {
      const [runId, instruction] = positionals;
      if (!runId || !instruction) throw new ReinError("goal_invalid", 'expected: rein reply <runId> "<instruction>"');
      const state = await context.runtime.runs.require(runId);
      if (state.status !== "escalated") throw new ReinError("goal_invalid", `run ${runId} is ${state.status}; only an escalated run takes a reply`);
      await context.runtime.queues.sendControl({ type: "run.resume", eventId: `resume-${runId}-${newId("call")}`, runId, instruction });
      out(`reply sent to ${runId}`);
      return 0;
    }),
};
