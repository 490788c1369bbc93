import type { Worker } from "bullmq";

/** One tracked job's lock: `held` answers, and `signal` aborts, once a renewal was refused. */
export interface WatchedLock {
  held(): boolean;
  signal: AbortSignal;
  release(): void;
}

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
  private readonly running = new Map<string, AbortController>();

  constructor(worker: Worker) {
    worker.on("lockRenewalFailed", (jobIds) => {
      for (const jobId of jobIds) this.running.get(jobId)?.abort(new Error(`job ${jobId} lost its lock: another worker may hold it`));
    });
  }

  /** Starts watching a job whose lock was just taken, until `release`. */
  track(jobId: string): WatchedLock {
    const lost = new AbortController();
    this.running.set(jobId, lost);
    return {
      held: () => !lost.signal.aborted,
      signal: lost.signal,
      release: () => {
        if (this.running.get(jobId) === lost) this.running.delete(jobId);
      },
    };
  }
}
