import type { Worker } from "bullmq";
import type { QueueRole } from "../config/queues-config.ts";
import { QUEUE_NAMES } from "../queues/queue-names.ts";
import type { ReinRuntime } from "../runtime.ts";
import { until } from "@rein/contracts/testing";

/** One job's lock, made to vanish in the middle of a call. */
export interface LapsingLock {
  /** Notes the worker's refused renewals of the job's lock; call it on the worker that runs the job. */
  watch(worker: Worker): void;
  /**
   * Deletes the lock (as a Redis outage longer than the lock does) and
   * returns only once the watched worker has failed to renew it: called
   * from inside a model call, the call ends with the lock already lost.
   */
  vanish(): Promise<void>;
}

/** The lock of job `jobId` of run `runId` on `role`'s queue, to take away from the worker running it. */
export function lapsingLock(
  runtime: Pick<ReinRuntime, "keys" | "redis">,
  role: Exclude<QueueRole, "control">,
  job: { runId: string; jobId: string },
): LapsingLock {
  const { jobId } = job;
  const lockKey = `${runtime.keys.job(QUEUE_NAMES[role], jobId, job.runId)}:lock`;
  let renewalFailed = false;
  return {
    watch: (worker) => {
      worker.on("lockRenewalFailed", (ids) => {
        if (ids.includes(jobId)) renewalFailed = true;
      });
    },
    vanish: async () => {
      await runtime.redis.del(lockKey);
      await until("a failed lock renewal", () => renewalFailed);
    },
  };
}
