import type { WorkerOptions } from "bullmq";
import { type QueueRole, queueSettingsOf, type ReinRuntime } from "@rein/runtime";

/**
 * Jobs a role's consumer runs at once when its caller sets none. The
 * controller's are short Redis work and a plan's waits on its model: many
 * at once cost no more, and their Redis commands share round trips (with
 * 4 plans and 4 evaluations, a one-step run of `npm run load` took 29 Redis
 * reads; with these, 22: capacity.md). An
 * evaluation may run check commands, and a step its tools, on this machine:
 * fewer of those.
 */
export const DEFAULT_CONCURRENCY: Readonly<Record<QueueRole, number>> = { control: 32, plan: 32, step: 4, evaluate: 16 };

/** What a caller may set on a role's consumer over config: `rein worker --lock-ms`, a test's faster recovery. */
export type WorkerTiming = Partial<Pick<WorkerOptions, "lockDuration" | "stalledInterval" | "maxStalledCount">>;

/**
 * The BullMQ options of `role`'s consumer of queue shard `shard`: connection
 * and that shard's prefix, lock and stall settings from config `queues` (the
 * same for every role unless a role overrides them), then `timing` over those.
 */
export function workerOptionsOf(
  runtime: Pick<ReinRuntime, "config" | "connection" | "keys"> & Partial<Pick<ReinRuntime, "telemetry">>,
  role: QueueRole,
  concurrency: number,
  timing: WorkerTiming = {},
  shard = 0,
): WorkerOptions {
  const settings = queueSettingsOf(runtime.config.queues, role);
  return {
    connection: runtime.connection,
    prefix: runtime.keys.queuePrefix(shard),
    concurrency,
    lockDuration: settings.lockMs,
    stalledInterval: settings.stalledIntervalMs,
    maxStalledCount: settings.maxStalledCount,
    ...(runtime.telemetry ? { telemetry: runtime.telemetry.bullmq } : {}),
    ...definedOnly(timing),
  };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as Partial<T>;
}
