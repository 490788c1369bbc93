import { type Job, Worker } from "bullmq";
import { type QueueRole, type ReinRuntime, QUEUE_NAMES } from "@rein/runtime";
import { type FinalFailure, onFinalFailure } from "./final-failure.ts";
import { LockWatch } from "./lock-watch.ts";
import type { JobDelivery } from "./role-job.ts";
import { type WorkerTiming, workerOptionsOf } from "./worker-options.ts";

/** What building a role's consumer needs of the runtime. */
export type ConsumerRuntime = Pick<ReinRuntime, "config" | "connection" | "keys" | "redisErrors"> & Partial<Pick<ReinRuntime, "telemetry">>;

export interface RoleConsumerSpec {
  /** The queue it consumes; its lock and stall settings are this role's in config `queues`. */
  role: Exclude<QueueRole, "control">;
  /** The queue's name when not the role's: a build's step queue (`stepQueueName`). @defaultValue the role's queue */
  queue?: string;
  concurrency: number;
  /** The queue shard it takes from (config `queues.shards`). @defaultValue 0 */
  shard?: number;
  /** Lock and stall settings over config `queues` (`rein worker --lock-ms`). */
  stalled?: WorkerTiming;
  /** Runs one job, usually through runRoleJob. */
  process(delivery: JobDelivery): Promise<void>;
  /** Tells the controller about a job that failed for good, so its run never waits on it forever. */
  onFinalFailure(job: Job, reason: string, failure: FinalFailure): Promise<void>;
}

/**
 * A role's BullMQ consumer, wired the same way for every role: the role's
 * worker options, a lock watch for its jobs, Redis errors logged once per
 * outage, and a report for each job that fails for good.
 */
export function startRoleConsumer(runtime: ConsumerRuntime, spec: RoleConsumerSpec): Worker {
  const worker: Worker = new Worker(
    spec.queue ?? QUEUE_NAMES[spec.role],
    (job, token, signal): Promise<void> => spec.process({ job, token, signal, locks }),
    workerOptionsOf(runtime, spec.role, spec.concurrency, spec.stalled, spec.shard),
  );
  const locks = new LockWatch(worker);
  runtime.redisErrors.watch(worker, `${spec.role} consumer`);
  onFinalFailure(worker, spec.onFinalFailure);
  return worker;
}

/**
 * Closes a consumer, letting its current jobs finish. It first waits for
 * the worker to be connected: a worker closed while its connections still
 * connect makes them reject, and BullMQ emit an unhandled 'error' (a
 * process stopped right after it started would crash instead of exiting 0).
 */
export async function closeWorker(worker: Worker): Promise<void> {
  await worker.waitUntilReady().catch(() => undefined);
  await worker.close();
}
