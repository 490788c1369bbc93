import type { Worker } from "bullmq";

/**
 * What a worker knows, without asking Redis, about the locks of the jobs it
 * runs: BullMQ renews each lock in the background and says when a renewal
 * failed. A lock not renewed within its duration (Redis unreachable, the
 * process stalled) has lapsed, and the stall check may already have handed
 * the job to another worker.
 */
export class LockWatch {
  private readonly renewed = new Map<string, number>();
  private readonly lost = new Set<string>();

  constructor(
    worker: Worker,
    private readonly lockDurationMs: number,
    private readonly now: () => number = Date.now,
  ) {
    worker.on("locksRenewed", ({ jobIds }) => {
      for (const jobId of jobIds) if (this.renewed.has(jobId)) this.renewed.set(jobId, this.now());
    });
    worker.on("lockRenewalFailed", (jobIds) => {
      for (const jobId of jobIds) if (this.renewed.has(jobId)) this.lost.add(jobId);
    });
  }

  /** Starts watching a job whose lock was just taken; `held` answers until `release`. */
  track(jobId: string): { held(): boolean; release(): void } {
    this.renewed.set(jobId, this.now());
    this.lost.delete(jobId);
    return {
      held: () => !this.lost.has(jobId) && this.now() - (this.renewed.get(jobId) ?? 0) < this.lockDurationMs,
      release: () => {
        this.renewed.delete(jobId);
        this.lost.delete(jobId);
      },
    };
  }
}
