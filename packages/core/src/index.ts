export * from "./contracts/index.ts";
export { canonicalJson, hashOf, sha256, type Sha256 } from "./canonical/canonical-json.ts";
export { idFrom, newId, type IdKind } from "./ids.ts";
export { ReinError, toQueueError, errorMessage, type ReinErrorCode, type ReinErrorOptions } from "./errors.ts";
export { closestName } from "./closest-name.ts";
export { createLogger, LOG_LEVELS, type Logger, logFileDestination, type LogLevel, logLevelFrom } from "./logger.ts";
export {
  DEFAULT_REDIS_URL,
  loadConfig,
  validateRoles,
  ReinConfig,
  ProviderConfig,
  ProviderKind,
  RoleModelConfig,
  Price,
  type ReinConfigInput,
  type LoadConfigOptions,
} from "./config/config.ts";
export { apiKeyEnvOf, secretsAndRedactor } from "./config/config-redactor.ts";
export * from "./secrets/index.ts";
export { LiveChannel, LiveEvent, liveEventOf, type LiveSubscription } from "./live/index.ts";
export { bullmqConnectionOf, connectRedis, pingRedis, probeRedis, assertRedis, redactPassword, type Redis } from "./redis/connection.ts";
export { connectRedisFor, scanKeys, type RedisClient, type RedisConnections } from "./redis/redis-client.ts";
export { RedisKeys } from "./redis/keys.ts";
export { deleteByPrefix } from "./redis/delete-by-prefix.ts";
export { deleteKeys } from "./redis/delete-keys.ts";
export { RunStore, type TraceWrite } from "./stores/run-store.ts";
export { ArtifactStore, type Artifact, type ArtifactStoreOptions } from "./stores/artifact-store.ts";
export { TraceBuffer, type TraceWriter } from "./trace/index.ts";
export { TraceLog, type TraceLogOptions, PromptChain, PromptCopy, assemblePrompt, expandPromptCopy, promptHash, splitPrompt, storePromptCopy, type PromptParts } from "./trace/index.ts";
export { QUEUE_NAMES, jobIds, type QueueName } from "./queues/queue-names.ts";
export { ReinQueues, defaultJobOptions, queueJobOptions, type ReinQueuesOptions } from "./queues/queues.ts";
export { workerOptionsOf, type WorkerTiming } from "./queues/worker-options.ts";
export { admitJob, staleJobReason, type IntakeDeps, type IntakeJob } from "./queues/job-intake.ts";
export { LockWatch, type WatchedLock } from "./queues/lock-watch.ts";
export { assertLockHeld, giveUpLostLock, stopSignal } from "./queues/lock-lost.ts";
export { isConnectionError, RedisErrorLog, type ErrorEmitter } from "./redis/redis-error-log.ts";
export { QUEUE_ROLES, QueueSettings, QueuesConfig, queueSettingsOf, type QueueRole } from "./config/queues-config.ts";
export { JobRetention, RetentionConfig } from "./config/retention-config.ts";
export { PacketSigner, PacketVerifier, type PacketVerifyOptions } from "./packets/packet-signer.ts";
export {
  generatePacketKeys,
  exportPacketKeys,
  privateKeyFromEnv,
  publicKeyFromEnv,
  type PacketKeyPair,
} from "./packets/packet-keys.ts";
export * from "./keys/index.ts";
export * from "./models/index.ts";
export { ModelScript, ScriptedConversation, ScriptedTurn, type ModelScriptInput } from "./models/scripted/script.ts";
export * from "./tools/index.ts";
export * from "./sandbox/index.ts";
export * from "./supervisor/index.ts";
export * from "./plugins/index.ts";
// Both the model adapters and the tool executor classify failures; name each for its domain.
export { classifyFailure } from "./models/index.ts";
export { classifyFailure as classifyToolFailure } from "./tools/index.ts";
export { tracedComplete, type ModelCallTrace } from "./models/traced-complete.ts";
export { completeStructured, describeIssues, usageOfFailure, type StructuredOptions, type StructuredResult } from "./models/complete-structured.ts";
export { createRuntime, type ReinRuntime, type RuntimeOptions } from "./runtime.ts";
export { LessonStore, type LessonStoreOptions, type ScoredLesson } from "./lessons/lesson-store.ts";
export { bm25Scores, tokenize, type Bm25Options } from "./lessons/bm25.ts";
// Tools written outside the workspace packages (examples/*/tools.ts) get the zod instance core validates with.
export { z } from "zod";
export { assertAttenuated, type AttenuatedPacket, type PacketBounds } from "./packets/attenuation.ts";
export { CheckpointStore, checkpointKeys, type CheckpointCounts, type CheckpointStoreOptions } from "./stores/checkpoint-store.ts";
export { expireWithin, runKeysOf } from "./stores/run-retention.ts";
export { onFinalFailure } from "./queues/final-failure.ts";
