import { z } from "zod";
import { isTerminal, jobIds, type PacketBody, type RedisClient, type RedisKeys, ReinError, RunStatus, StepPhase } from "@rein/core";

// Only what intake decides on, so a long run's whole state is not validated for it.
const StepView = z.object({
  status: RunStatus,
  steps: z.array(z.object({ stepId: z.string(), attempt: z.number().int(), phase: StepPhase, resumes: z.number().int().nonnegative().default(0) })),
});

/**
 * Why a step job must not run, or undefined when the run is still waiting
 * for exactly this job: its run gone or ended, its step unknown, on another
 * attempt or dispatch, or no longer running (its result was already applied).
 */
export async function staleReason(redis: RedisClient, keys: RedisKeys, jobId: string, body: Pick<PacketBody, "runId" | "stepId" | "attempt">): Promise<string | undefined> {
  const raw = await redis.hget(keys.run(body.runId), "state");
  if (raw === null) return `run ${body.runId} no longer exists`;
  const parsed = StepView.safeParse(JSON.parse(raw));
  if (!parsed.success) throw new ReinError("contract_invalid", `stored run ${body.runId} does not match RunState: ${parsed.error.message}`);
  const state = parsed.data;
  // An escalated run waits for a person, whose decision dispatches what runs next.
  if (isTerminal(state.status) || state.status === "escalated") return `run ${body.runId} has already ended (${state.status})`;
  const step = state.steps.find((candidate) => candidate.stepId === body.stepId);
  if (!step) return `run ${body.runId} has no step ${body.stepId}`;
  if (step.attempt !== body.attempt) return `step ${body.stepId} is on attempt ${step.attempt}, not ${body.attempt}`;
  if (step.phase !== "dispatched" && step.phase !== "executing") return `step ${body.stepId} is ${step.phase}: its result was already applied`;
  const current = jobIds.step(body.runId, body.stepId, step.attempt, step.resumes);
  if (jobId !== current) return `step ${body.stepId} was dispatched again as job ${current}`;
  return undefined;
}
