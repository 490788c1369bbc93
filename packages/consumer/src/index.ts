// The BullMQ consumer every role runs: a Worker on the role's queue whose jobs are admitted
// against the run's state, watched for a lost lock or an ended run, given up as the queue
// retries them (UnrecoverableError for what retrying cannot help), and reported when lost to stalls.
export { closeWorker, startRoleConsumer } from "./role-consumer.ts";
export { type HandedJob, type JobDelivery, runRoleJob } from "./role-job.ts";
export type { WatchedLock } from "./lock-watch.ts";
export { queuedRunEvents, type RunEvents } from "./run-events.ts";
export { TraceHold } from "./trace-hold.ts";
export { admitJob, staleJobReason } from "./job-intake.ts";
export { assertLockHeld } from "./lock-lost.ts";
export { onFinalFailure } from "./final-failure.ts";
export { reportLostToStalls } from "./lost-to-stalls.ts";
export { toQueueError } from "./queue-error.ts";
export { DEFAULT_CONCURRENCY, type WorkerTiming, workerOptionsOf } from "./worker-options.ts";
