import type { Job } from "bullmq";
import { ReinError } from "@rein/contracts";
import { toQueueError } from "./queue-error.ts";
import { admitJob, type IntakeDeps, type IntakeJob } from "./job-intake.ts";
import { giveUpLostLock, stopSignal } from "./lock-lost.ts";
import type { LockWatch, WatchedLock } from "./lock-watch.ts";

/** One job as BullMQ hands it to a role's consumer (see startRoleConsumer). */
export interface JobDelivery {
  job: Job;
  /** The job's lock token; absent only when BullMQ runs it without a lock. */
  token: string | undefined;
  /** Aborts when the worker shuts down. */
  signal: AbortSignal | undefined;
  /** `locks.track` tells the job, without asking Redis, once its lock was lost. */
  locks: LockWatch;
}

/**
 * A job run in the process of the role that produced it instead of through
 * its queue (an in-process hand-off): `jobId` is the id it has in its queue,
 * and its lease stands for the queue job's lock. It skips intake's read: it
 * is handed over by the write that asked for it (or a read that found that
 * write the run's last), never recovered or redelivered, so its run awaited
 * it a round trip ago; a change since then is fenced by its result's
 * compare-and-set, as for any job.
 */
export interface HandedJob {
  jobId: string;
  lease: WatchedLock;
  /** Aborts when the process shuts down. */
  signal: AbortSignal | undefined;
}

/** A job intake let through, with its lock watched until it ends. */
export interface AdmittedJob {
  jobId: string;
  lock: WatchedLock;
  /** Aborts on shutdown or once the lock is lost: what the job's model calls stop on. */
  stop: AbortSignal;
}

export interface RoleJobSpec {
  /** The role, as the log line of a job that lost its lock names it. */
  role: string;
  /** What intake checks against the job's run before anything runs. */
  intake: IntakeJob;
  /** The intake read, when the role sent it already (see admitJob). */
  stale?: Promise<string | undefined>;
  run(admitted: AdmittedJob): Promise<void>;
  /** Called when intake drops the job (see RunEvents.settle). */
  onDropped?(): Promise<void>;
  /**
   * What a failure becomes while the job still holds its lock (from intake
   * too); throw to fail the job. @defaultValue rethrown through toQueueError
   */
  onError?(error: unknown): Promise<void>;
}

/**
 * Runs one job the way every role does. Intake first: a queued job its run
 * no longer waits for is dropped (it completes, see admitJob). Then its lock is
 * watched while it runs and released after; a job that lost its lock, or
 * whose write was fenced off with `lock_lost`, stops without writing and
 * goes back to wait (see giveUpLostLock), whatever it was failing with. A
 * handed job that lost its lease throws `lock_lost` to the hand-off instead.
 */
export async function runRoleJob(runtime: IntakeDeps, delivery: JobDelivery | HandedJob, spec: RoleJobSpec): Promise<void> {
  const jobId = "lease" in delivery ? delivery.jobId : (delivery.job.id ?? "");
  let lock: WatchedLock | undefined;
  try {
    if (!("lease" in delivery) && !(await admitJob(runtime, jobId, spec.intake, spec.stale))) return await spec.onDropped?.();
    lock = "lease" in delivery ? delivery.lease : delivery.locks.track(jobId);
    await spec.run({ jobId, lock, stop: stopSignal(delivery.signal, lock) });
  } catch (error) {
    if (lock && (!lock.held() || ReinError.hasCode(error, "lock_lost"))) {
      if ("lease" in delivery) throw new ReinError("lock_lost", `handed job ${jobId} lost its lease; another process may be running it`);
      return giveUpLostLock(delivery.job, delivery.token, runtime.logger, spec.role);
    }
    if (spec.onError) return spec.onError(error);
    throw toQueueError(error);
  } finally {
    lock?.release();
  }
}
