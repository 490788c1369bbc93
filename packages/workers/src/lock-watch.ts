import type { Worker } from "bullmq";

/**
 * What a worker knows, without asking Redis, about the locks of the jobs it
 * runs: BullMQ renews each lock in the background and says when a renewal
 * was refused because the lock is gone or another worker's (after a Redis
 * outage or a pause longer than the lock). A late renewal is not a lost one:
 * a slow event loop on a loaded machine must not give up a job that is still
 * this worker's; the owner fence on every write (CheckpointStore.saveTurn)
 * catches a job that was really taken over.
 */
export class LockWatch {
  private readonly running = new Set<string>();
  private readonly lost = new Set<string>();

  constructor(worker: Worker) {
    worker.on("lockRenewalFailed", (jobIds) => {
      for (const jobId of jobIds) if (this.running.has(jobId)) this.lost.add(jobId);
    });
  }

  /** Starts watching a job whose lock was just taken; `held` answers until `release`. */
  track(jobId: string): { held(): boolean; release(): void } {
    this.running.add(jobId);
    this.lost.delete(jobId);
    return {
      held: () => !this.lost.has(jobId),
      release: () => {
        this.running.delete(jobId);
        this.lost.delete(jobId);
      },
    };
  }
}
