import type { Job, Worker } from "bullmq";
import { errorMessage } from "@rein/contracts";

/** How a job came to fail for good. */
export interface FinalFailure {
  /**
   * Its worker was lost more often than config `queues.maxStalledCount`
   * allows (the process died, or lost Redis past its lock): nothing the job
   * did failed, so what it saved (a step's checkpoint) is intact.
   */
  workerLost: boolean;
}

/** BullMQ's words for a job whose lock lapsed more often than `maxStalledCount` allows. */
const STALLED_FOR_GOOD = /stalled more than allowable limit/;

/**
 * Calls `report` once a job has failed for good: it threw an unrecoverable
 * error, used up its attempts, or stalled past its limit. A role uses it to
 * tell the controller, so that a run never waits forever on a job nobody
 * will finish.
 */
export function onFinalFailure(worker: Worker, report: (job: Job, reason: string, failure: FinalFailure) => Promise<void>): void {
  worker.on("failed", (job, error) => {
    if (!job) return;
    const workerLost = STALLED_FOR_GOOD.test(error.message);
    const final = workerLost || error.name === "UnrecoverableError" || job.attemptsMade >= (job.opts.attempts ?? 1);
    if (!final) return;
    report(job, errorMessage(error), { workerLost }).catch((reportError: unknown) => {
      worker.emit("error", reportError instanceof Error ? reportError : new Error(String(reportError)));
    });
  });
}
