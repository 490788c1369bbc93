import { type PacketBody, zeroUsage } from "@rein/contracts";
import type { StepJob } from "@rein/contracts/messages";
import type { PacketSigner } from "@rein/signing";
import { jobIds, type ReinRuntime } from "@rein/runtime";
import { submitGoal, transition, transitionSettings } from "@rein/orchestrator";
import { noopGoal, noopPlan } from "./scripts.ts";

/**
 * `count` signed no-op step jobs for distinct runs. The packet body comes
 * from the controller's own transition (goal.submitted, then plan.ready),
 * so it is exactly what a controller would dispatch; only the run id varies.
 * Each run's state is stored as the controller left it, so a worker's intake
 * finds its step waiting for exactly this job.
 */
export async function noopStepJobs(runtime: ReinRuntime, signer: PacketSigner, count: number): Promise<{ jobId: string; data: StepJob }[]> {
  const { state } = await submitGoal(runtime, noopGoal, { knownTools: [] });
  const settings = transitionSettings(runtime.config, new Date());
  const planning = transition(state, { type: "goal.submitted", eventId: "bench-submitted", runId: state.runId }, settings).state;
  const dispatched = transition(
    planning,
    {
      type: "plan.ready",
      eventId: "bench-planned",
      runId: state.runId,
      planNo: 1,
      plan: noopPlan("No-op step"),
      usage: zeroUsage(),
      lessonsUsed: [],
    },
    settings,
  );
  const effect = dispatched.effects.find((candidate) => candidate.type === "dispatch_step");
  if (effect?.type !== "dispatch_step") throw new Error("the controller did not dispatch the bench's no-op step");
  const jobs: { jobId: string; data: StepJob }[] = [];
  for (let index = 0; index < count; index += 1) {
    const body: PacketBody = { ...effect.body, runId: `${state.runId}x${index}` };
    await runtime.runs.create({ ...dispatched.state, runId: body.runId });
    jobs.push({ jobId: jobIds.step(body.runId, body.stepId, body.attempt), data: { packet: signer.sign(body) } });
  }
  return jobs;
}
