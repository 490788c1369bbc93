// The house every role lives in: config assembled from each package's piece, one Redis
// (run state, trace log, artifacts, checkpoints, approvals, lessons, the stores that implement
// the tool kit's ports), the queues (each role's consumer is @rein/consumer), the live channel, telemetry,
// and createRuntime with the narrow runtime each role may use. Keys handled directly: /keys.
export { createRuntime, type ReinRuntime, type RuntimeOptions } from "./runtime.ts";
export type { ControllerRuntime, EvaluatorRuntime, PlannerRuntime, RunStateReads, StepWorkerRuntime } from "./role-runtimes.ts";
export { loadConfig, ReinConfig, type ReinConfigInput } from "./config/config.ts";
export { DEFAULT_REDIS_URL, redisUrlFromEnv } from "./config/redis-url.ts";
export { type QueueRole, queueSettingsOf } from "./config/queues-config.ts";
export { secretsAndRedactor } from "./config/config-redactor.ts";
export type { UnknownOutcomePolicy } from "./config/evaluator-config.ts";
export { assertRedis, connectRedis, pingRedis, type Redis, redactPassword } from "./redis/connection.ts";
export { RunStore, type SaveOutcome } from "./stores/run-store.ts";
export { type Artifact, ArtifactStore } from "./stores/artifact-store.ts";
export { type CheckpointCounts, CheckpointStore } from "./stores/checkpoint-store.ts";
export { IdempotencyStore } from "./stores/idempotency-store.ts";
export { ToolResultCache } from "./stores/tool-result-cache.ts";
export { ApprovalDecisionInput, ApprovalStore } from "./approvals/approval-store.ts";
export { LessonStore } from "./lessons/lesson-store.ts";
export { TraceLog } from "./trace/trace-log.ts";
export { TraceBuffer } from "./trace/trace-buffer.ts";
export { LiveEvent, liveEventOf } from "./live/live-event.ts";
export type { LiveSubscription } from "./live/live-channel.ts";
export { CallInFlight } from "./live/calls-in-flight.ts";
export { CallSpans } from "./telemetry/call-spans.ts";
export { GENAI } from "./telemetry/genai-attributes.ts";
export { startOtel, stopOtel } from "./telemetry/start-otel.ts";
export { jobIds, QUEUE_NAMES, resultEventIds, stepQueueName } from "./queues/queue-names.ts";
export { defaultJobOptions, queueJobOptions, type ReinQueues } from "./queues/queues.ts";
export {
  type AwaitedJob,
  AwaitedJobs,
  awaitedJobs,
  awaitedJobsOf,
  awaitedKey,
  type AwaitingRun,
  type IntakeJob,
} from "./queues/awaited-jobs.ts";
export { RunEndWatch } from "./queues/run-end-watch.ts";
export { RedisRateLimiter, type RedisRateLimiterOptions } from "./rate-limit/redis-rate-limiter.ts";
