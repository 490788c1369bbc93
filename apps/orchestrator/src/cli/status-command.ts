import { isTerminal } from "@rein/contracts/run";
import { answerLines } from "./answer-lines.ts";
import { withContext } from "./cli-context.ts";
import type { CommandHandler } from "./command-spec.ts";
import type { STATUS } from "./command-specs.ts";
import { out } from "./output.ts";
import { spendLine } from "./spend-line.ts";
import { stepLines } from "../trace/views/group-lines.ts";

// In a module of its own: `rein status` reads one run, and loading the submit and reply commands'
// tooling with it (MCP, plugins, examples) cost most of its start.
export const statusCommand: CommandHandler<typeof STATUS> = ({ runId }, flags) =>
  withContext(flags, async (context) => {
    const state = await context.runtime.runs.require(runId);
    if (flags.json) {
      out(JSON.stringify(state, null, 2));
      return 0;
    }
    out(`run ${state.runId}: ${state.status}${state.stopReason ? ` (${state.stopReason})` : ""}`);
    out(`goal: ${state.goal.text}`);
    // A parallel group's members together, each with its spend against its slice.
    for (const line of stepLines(state)) out(line);
    // An ended run's approvals expired with it: nothing waits on them.
    if (state.pendingApprovals.length > 0 && !isTerminal(state.status)) out(`waiting for approval: ${state.pendingApprovals.join(", ")}`);
    out(`spent: ${spendLine(state)}`);
    for (const line of state.result ? answerLines(state.result) : []) out(line);
    if (state.result?.partial && state.result.missing.length > 0) out(`missing: ${state.result.missing.join("; ")}`);
    return 0;
  });
