import type { ConnectionOptions } from "bullmq";
import type { DestinationStream } from "pino";
import { Cluster } from "ioredis";
import type { ReinConfig } from "./config/config.ts";
import { secretsAndRedactor } from "./config/config-redactor.ts";
import { LiveChannel } from "./live/live-channel.ts";
import { createLogger, type Logger, type LogLevel, redactingLoggerOptions, type Redactor, type SecretBindings } from "@rein/guard";
import { queueJobOptions, ReinQueues } from "./queues/queues.ts";
import { HandoffLeases } from "./queues/handoff-leases.ts";
import { RunEndWatch } from "./queues/run-end-watch.ts";
import { connectRedisFor, type RedisClient } from "./redis/redis-client.ts";
import { RedisKeys } from "./redis/keys.ts";
import { RedisErrorLog } from "./redis/redis-error-log.ts";
import { ArtifactStore } from "./stores/artifact-store.ts";
import { CheckpointStore } from "./stores/checkpoint-store.ts";
import { RunStore } from "./stores/run-store.ts";
import { RunTraceContexts } from "./telemetry/run-trace-contexts.ts";
import { type LiveTelemetry, startOtel } from "./telemetry/start-otel.ts";
import { TraceLog, type TraceLogOptions } from "./trace/trace-log.ts";

/** The shared Redis-backed pieces every role uses, built once per process. */
export interface ReinRuntime {
  config: ReinConfig;
  redis: RedisClient;
  /** BullMQ's `connection` for workers and queues: options for one Redis, a shared Cluster for a cluster. */
  connection: ConnectionOptions;
  keys: RedisKeys;
  runs: RunStore;
  trace: TraceLog;
  artifacts: ArtifactStore;
  /** Step workers' checkpoints, each write fenced by the step's owner token. */
  checkpoints: CheckpointStore;
  /** Run ends as this process's step workers hear of them: one subscription, opened by the first `start`. */
  runEnds: RunEndWatch;
  queues: ReinQueues;
  /** Leases on jobs run in process instead of through their queue. */
  handoffs: HandoffLeases;
  /** Model text deltas of a run as they stream (pub/sub, not the trace). */
  live: LiveChannel;
  logger: Logger;
  /** Where every Redis client of this process reports connection errors: logged once per outage, not per retry. */
  redisErrors: RedisErrorLog;
  /** Config `secrets` with their values and bindings; each tool call sees only what is bound to its tool. */
  secrets: SecretBindings;
  /** Removes those secrets, provider API keys and PII; the trace and the runtime's logger already apply it. */
  redactor: Redactor;
  /** Present when config `otel.enabled`: this process's live OpenTelemetry. */
  telemetry?: LiveTelemetry;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /** Used as given; without one the runtime builds a pino logger that redacts with `redactor`. */
  logger?: Logger;
  /** Where the runtime's own logger writes. @defaultValue stderr */
  logDestination?: DestinationStream;
  /** The runtime's own logger's level. @defaultValue REIN_LOG_LEVEL, else "warn" */
  logLevel?: LogLevel;
  trace?: TraceLogOptions;
  /** Where secrets and provider keys are read from. @defaultValue process.env */
  env?: NodeJS.ProcessEnv;
}

export function createRuntime(config: ReinConfig, options: RuntimeOptions = {}): ReinRuntime {
  const connections = connectRedisFor(config);
  const { redis } = connections;
  const connection = connections.bullmq;
  const keys = new RedisKeys(config.prefix, config.queues.shards);
  const { secrets, redactor } = secretsAndRedactor(config, options.env ?? process.env);
  const logger = options.logger ?? createLogger({ ...redactingLoggerOptions(redactor), level: options.logLevel }, options.logDestination);
  const redisErrors = new RedisErrorLog(logger);
  redisErrors.watchFamily(redis, "redis");
  // On a cluster BullMQ's connection is a Cluster of its own, connecting at once: unwatched, a process that
  // never opens a queue would print its errors as unhandled.
  if (connection instanceof Cluster) redisErrors.watchFamily(connection, "queue connection");
  // Off, nothing of OpenTelemetry is loaded: the cost is this branch.
  const telemetry = config.otel.enabled ? startOtel(config.otel) : undefined;
  const runTraces = telemetry ? new RunTraceContexts(redis, keys, config.retention.traceTtlSeconds) : undefined;
  const queues = new ReinQueues(connection, keys, {
    redisErrors,
    jobs: queueJobOptions(config),
    telemetry: telemetry?.bullmq,
    runTraces,
  });
  const runEnds = new RunEndWatch(redis, keys, logger);
  return {
    config,
    redis,
    connection,
    keys,
    runs: new RunStore(redis, keys),
    trace: new TraceLog(redis, keys, {
      ttlSeconds: config.retention.traceTtlSeconds,
      redact: redactor.redactJson,
      observe: telemetry?.observe,
      ...options.trace,
    }),
    artifacts: new ArtifactStore(redis, keys, { ttlSeconds: config.retention.artifactTtlSeconds }),
    checkpoints: new CheckpointStore(redis, keys),
    runEnds,
    queues,
    handoffs: new HandoffLeases(redis, keys),
    live: new LiveChannel(redis, keys, logger),
    logger,
    redisErrors,
    secrets,
    redactor,
    telemetry,
    close: async () => {
      await queues.close();
      await runEnds.close();
      await telemetry?.flush();
      connections.close();
    },
  };
}
