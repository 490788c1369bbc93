import type { Job } from "bullmq";
import type { StepResult } from "@rein/contracts";
import { awaitedKey, type IntakeJob, type ReinQueues } from "@rein/runtime";

/**
 * A plan, context or evaluate job that stalled past `queues.maxStalledCount`:
 * every worker that held it died or lost Redis, and nothing it did failed.
 * It is removed first, so that the controller's re-send (the same job id)
 * is a new job and no failed job is left for work that did not fail; then it
 * is reported as lost, and the controller sends it again or escalates the
 * run. A crash in between leaves the job gone and unreported, which the
 * controller's re-drive sweep finds. `stepResults` carries a lost step
 * evaluation's result, which only the job held.
 */
export async function reportLostToStalls(queues: ReinQueues, job: Job, awaited: IntakeJob, stepResults: StepResult[] = []): Promise<void> {
  await job.remove();
  await queues.sendControl({
    type: "jobs.lost",
    // This job's own: the same id sent again and lost again is a new loss.
    eventId: `stalled-${job.id}-${job.timestamp}`,
    runId: awaited.runId,
    jobs: [awaitedKey(awaited)],
    cause: "worker_lost",
    reason: `its worker died or lost Redis ${job.stalledCounter} time(s) while running it, more than config queues.maxStalledCount allows`,
    stepResults,
  });
}
