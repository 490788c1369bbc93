import { loadExample } from "../examples/load-example.ts";
import { replyToRun } from "../intake/reply-to-run.ts";
import { submitGoal } from "../intake/submit-goal.ts";
import { CONTROLLER_SEEN_SECONDS, controllerSeenRecently } from "../roles/controller-heartbeat.ts";
import { unavailableMcpServers } from "../mcp/mcp-status-board.ts";
import { knownToolNames } from "../roles/tooling.ts";
import { answerLines } from "./answer-lines.ts";
import { contextFlags, openContext } from "./cli-context.ts";
import type { CommandHandler, FlagValues, GLOBAL_FLAGS } from "./command-spec.ts";
import type { CANCEL, REPLY, STATUS, SUBMIT } from "./command-specs.ts";
import { goalFromCli, workspaceFlags } from "./goal-input.ts";
import { err, out } from "./output.ts";

async function withContext<T>(flags: FlagValues<typeof GLOBAL_FLAGS>, body: (context: Awaited<ReturnType<typeof openContext>>) => Promise<T>): Promise<T> {
  const context = await openContext({ ...contextFlags(flags) });
  try {
    return await body(context);
  } finally {
    await context.close();
  }
}

export const submitCommand: CommandHandler<typeof SUBMIT> = ({ goal: goalText }, flags) =>
  withContext(flags, async (context) => {
    const example = flags.example === undefined ? undefined : await loadExample(flags.example);
    const goal = goalFromCli(goalText, example, flags.tools);
    const { runId } = await submitGoal(context.runtime, goal, {
      knownTools: knownToolNames(context.config, example?.tools ?? []),
      unavailableMcp: await unavailableMcpServers(context.runtime),
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
  });

export const statusCommand: CommandHandler<typeof STATUS> = ({ runId }, flags) =>
  withContext(flags, async (context) => {
    const state = await context.runtime.runs.require(runId);
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
  });

export const cancelCommand: CommandHandler<typeof CANCEL> = ({ runId }, flags) =>
  withContext(flags, async (context) => {
    await context.runtime.runs.require(runId);
    await context.runtime.queues.sendControl({
      type: "run.cancel",
      eventId: `cancel-${runId}`,
      runId,
      reason: flags.reason ?? `cancelled by ${process.env.USER ?? "a person"}`,
    });
    out(`cancel requested for ${runId}`);
    return 0;
  });

export const replyCommand: CommandHandler<typeof REPLY> = ({ runId, instruction }, flags) =>
  withContext(flags, async (context) => {
    await replyToRun(context.runtime, runId, instruction);
    out(`reply sent to ${runId}`);
    return 0;
  });
