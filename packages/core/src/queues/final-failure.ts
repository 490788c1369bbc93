import type { Job, Worker } from "bullmq";
import { errorMessage } from "../errors.ts";

/**
 * Calls `report` once a job has failed for good: it threw an unrecoverable
 * error, or used up its attempts. A role uses it to tell the controller, so
 * that a run never waits forever on a job nobody will finish.
 */
export function onFinalFailure(worker: Worker, report: (job: Job, reason: string) => Promise<void>): void {
  worker.on("failed", (job, error) => {
    if (!job) return;
    const final = error.name === "UnrecoverableError" || job.attemptsMade >= (job.opts.attempts ?? 1);
    if (!final) return;
    report(job, errorMessage(error)).catch((reportError: unknown) => {
      worker.emit("error", reportError instanceof Error ? reportError : new Error(String(reportError)));
    });
  });
}
