import { type Job, WaitingError } from "bullmq";
import { ReinError } from "@rein/contracts";
import type { Logger } from "@rein/guard";
import type { WatchedLock } from "./lock-watch.ts";

/** Throws `lock_lost` once a job's lock renewal was refused: what it would write next is another worker's to write. */
export function assertLockHeld(lock: WatchedLock, jobId: string): void {
  if (!lock.held()) throw new ReinError("lock_lost", `job ${jobId} lost its lock; another worker may be running it`);
}

/**
 * Stops a job that lost its lock without writing anything: back to wait if
 * the lock is still ours after all (a stall would count against the job);
 * refused, as it should be, when the job is another worker's.
 */
export async function giveUpLostLock(job: Job, token: string | undefined, logger: Logger, role: string): Promise<never> {
  logger.warn({ jobId: job.id, role }, `${role} job lost its lock; stopped without writing`);
  if (token) await job.moveToWait(token).catch(() => undefined);
  throw new WaitingError();
}

/** Stops a job's model calls on shutdown or once its lock is lost. */
export function stopSignal(shutdown: AbortSignal | undefined, lock: WatchedLock): AbortSignal {
  return shutdown ? AbortSignal.any([shutdown, lock.signal]) : lock.signal;
}
