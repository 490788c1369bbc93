export { AcceptanceCriterion, addUsage, APPROVAL_SCHEMA_VERSION, Approval, BudgetSpent, CheckResult, Claim, ClaimCheck, ClaimStatus, ContextJob, ControlEvent, ControllerEffect, DelegationRequest, EvaluateJob, EvaluateRequest, EvidenceEntry, EvidenceSource, EvidenceFact, FINAL_ANSWER_STEP_ID, FinalAnswer, FinalAnswerEvaluateJob, Goal, type GoalInput, GoalKind, HandoffPacket, HashString, isTerminal, JsonObject, Lesson, LessonRef, Observation, PacketBody, Plan, PlanJob, PlannerContext, PolicyRule, ResumeInput, Role, RunBudget, RunResult, RunState, RunStatus, StepBudget, StepCheckpoint, StepEvaluateJob, StepEvaluateRequest, StepJob, StepJobAddress, StepResult, StepSpec, StepState, StepStatus, Suspension, ToolCallRecord, ToolCallStatus, ToolGrant, totalTokens, TraceEvent, Usage, Verdict, VerdictDecision, zeroUsage } from "@rein/contracts";
export { canonicalJson, hashOf, sha256 } from "@rein/contracts";
export { idFrom, newId } from "@rein/contracts";
export { ReinError, errorMessage } from "@rein/contracts";
export { toQueueError } from "./queues/queue-error.ts";
export { closestName } from "@rein/contracts";
export { createLogger, type Logger, logFileDestination, type LogLevel, logLevelFrom } from "@rein/guard";
export { loadConfig, ReinConfig, type ReinConfigInput } from "./config/config.ts";
export { Price } from "@rein/models";
export { DEFAULT_REDIS_URL, redisUrlFromEnv } from "./config/redis-url.ts";
export { secretsAndRedactor } from "./config/config-redactor.ts";
export type { UnknownOutcomePolicy } from "./config/evaluator-config.ts";
export { SecretBindings } from "@rein/guard";
export { LiveEvent, liveEventOf, type LiveSubscription } from "./live/index.ts";
export { connectRedis, pingRedis, assertRedis, redactPassword, type Redis } from "./redis/connection.ts";
export { scanKeys } from "./redis/redis-client.ts";
export { deleteByPrefix } from "./redis/delete-by-prefix.ts";
export { deleteKeys } from "./redis/delete-keys.ts";
export { flatPairs } from "./redis/flat-pairs.ts";
export { RunStore, type SaveOutcome } from "./stores/run-store.ts";
export { ArtifactStore, type Artifact } from "./stores/artifact-store.ts";
export { TraceBuffer, type TraceWriter } from "./trace/index.ts";
export {
  asCheckEvent,
  findTraceEvent,
  isCallTraceEvent,
  isTraceEventOf,
  typedTraceEvent,
  type CallTraceEvent,
  type TraceEventBody,
  type TraceEventInput,
  type TraceEventOf,
  type TraceKind,
  type TracePayloadInput,
  type TypedTraceEvent,
} from "./trace/index.ts";
export { CallSpans, GENAI, startOtel, stopOtel } from "./telemetry/index.ts";
export { TraceLog, PromptChain, PromptCopy, assemblePrompt, expandPromptCopy, promptHash } from "./trace/index.ts";
export { QUEUE_NAMES, jobIds, type QueueName, resultEventIds } from "./queues/queue-names.ts";
export { defaultJobOptions, queueJobOptions } from "./queues/queues.ts";
export { workerOptionsOf, type WorkerTiming } from "./queues/worker-options.ts";
export { admitJob, staleJobReason } from "./queues/job-intake.ts";
export { type AwaitedJob, awaitedJobsOf, awaitedKey } from "./queues/awaited-jobs.ts";
export { RunEndWatch } from "./queues/run-end-watch.ts";
export { assertLockHeld } from "./queues/lock-lost.ts";
export { PacketSigner, PacketVerifier } from "@rein/guard";
export { generatePacketKeys, exportPacketKeys, type PacketKeyPair } from "@rein/guard";
export { ensureKeyPairFiles, generateKeyPair, keyPairFiles, loadPrivateKey, loadPublicKey } from "@rein/guard";
export { acceptedSampling, assertRoleModels, CATALOGUE_READ_ON, checkModelLive, checkRoleModels, Effort, type LiveModelCheck, ModelConfigProblem, ModelEntry, modelEntryFor, recommendedModelFor, RetiredModel, retiredModelFor } from "@rein/models";
export { checkProviderReachable, estimateRequestTokens, estimateTextTokens, type ModelProvider, type ModelRequest, type ModelResponse, type ModelStreamEvent, parseJsonText, priceFor, ReplayProvider, roleMaxTokens, ScriptedProvider, textOf, toolCallsOf, unpricedModels } from "@rein/models";
export { type ContentBlock, jsonSchemaOf, type ModelMessage, type ModelToolSchema } from "@rein/contracts";
export type { ModelScriptInput } from "@rein/models";
export { type AnyTool, type ArtifactWriter, builtinTools, type CommandResult, createToolExecutor, defineTool, isFailureAddressed, type ModelToolCall, runCommandTool, type StepReadCache, type ToolContext, type ToolDefinition, type ToolExecutor, ToolRegistry, toolsExportOf, type TraceSink, withAddressedFailures, Workspace } from "@rein/tools";
export { type EntryScreen, escapeGlob } from "@rein/guard";
export {
  ApprovalDecisionInput,
  ApprovalSigner,
  ApprovalStore,
  ApprovalVerifier,
  decisionProblem,
} from "./approvals/index.ts";
export { presentEvidence, presentLessons, presentUntrusted, Redactor, sanitizeText, untrustedDataOf } from "@rein/guard";
export { type ConnectMcpOptions, connectMcpServer, type McpConnection, mcpToolName, startMcpServers } from "@rein/mcp";
export { resolveSandbox, unsandboxed, UNSANDBOXED_WARNING } from "@rein/sandbox";
export type { SupervisorStatus } from "@rein/sandbox";
export { type LoadedPlugin, loadPlugin, loadPlugins, PluginEntry, PluginHost, type PluginSet, type PluginStatus, pluginToolNames } from "@rein/plugins";
export { tracedComplete } from "@rein/models";
export { completeStructured, describeIssues, usageOfFailure } from "@rein/models";
export { createRuntime, type ReinRuntime, type RuntimeOptions } from "./runtime.ts";
export type { ControllerRuntime, EvaluatorRuntime, PlannerRuntime, StepWorkerRuntime } from "./role-runtimes.ts";
export { ToolResultCache } from "./stores/tool-result-cache.ts";
export { IdempotencyStore } from "./stores/idempotency-store.ts";
export { LessonStore } from "./lessons/lesson-store.ts";
// Tools written outside the workspace packages (examples/*/tools.ts) get the zod instance core validates with.
export { z } from "zod";
export { assertAttenuated } from "@rein/guard";
export { CheckpointStore, checkpointKeys, type CheckpointCounts } from "./stores/checkpoint-store.ts";
export { expireWithin, forgetExpiredRuns, forgetRuns, noteRunExpiry, runKeysOf } from "./stores/run-retention.ts";
export { onFinalFailure } from "./queues/final-failure.ts";
export { reportLostToStalls } from "./queues/lost-to-stalls.ts";
export { closeWorker, startRoleConsumer } from "./queues/role-consumer.ts";
export { type JobDelivery, runRoleJob } from "./queues/role-job.ts";
