import { newId, ReinError } from "@rein/contracts";
import type { ReinRuntime } from "@rein/runtime";

/**
 * Answers an escalated run with a person's instruction: the controller
 * resumes it with that instruction. `rein reply` and `POST /runs/:id/reply`
 * both come here. Any other status is refused, so a late reply cannot restart
 * a run that already moved on.
 */
export async function replyToRun(runtime: ReinRuntime, runId: string, instruction: string): Promise<void> {
  if (instruction.trim() === "") throw new ReinError("goal_invalid", "the reply is empty; expected an instruction for the run");
  const state = await runtime.runs.require(runId);
  if (state.status !== "escalated")
    throw new ReinError("goal_invalid", `run ${runId} is ${state.status}; only an escalated run takes a reply`);
  await runtime.queues.sendControl({ type: "run.resume", eventId: `resume-${runId}-${newId("call")}`, runId, instruction });
}
