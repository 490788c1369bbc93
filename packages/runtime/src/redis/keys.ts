import { queueShardOf, queueShardTag } from "../queues/queue-shards.ts";

/**
 * Every Redis key Rein writes, under one configurable prefix (default
 * "rein"). BullMQ queues use `queuePrefix()` through their own option.
 *
 * Keys are hash-tagged so that every script and transaction touches one
 * slot, and Rein runs unchanged on Redis Cluster: a run's keys carry
 * `{<runId>}`, the queues share `{queues}` (BullMQ's `{prefix}` convention:
 * its scripts touch several keys of a queue), or one tag per shard with
 * `queues.shards` (a run's jobs all on its shard), approvals share `{approvals}`,
 * lessons `{lessons}`, and the re-drive sweep's index and lease `{redrive}`. Every key still starts with `<prefix>:`, so one
 * SCAN pattern finds a deployment's keys.
 */
export class RedisKeys {
  readonly #queuePrefixes: string[];

  /**
   * @param queueShards How many shards each queue is split into (config
   * `queues.shards`); each shard is a BullMQ queue under its own hash tag.
   */
  constructor(
    readonly prefix: string,
    readonly queueShards = 1,
  ) {
    this.#queuePrefixes = Array.from({ length: queueShards }, (_, shard) => `${prefix}:{${queueShardTag(shard, queueShards)}}`);
  }

  /** The shard that holds every queue job and control event of run `runId`. */
  shardOf(runId: string): number {
    return queueShardOf(runId, this.queueShards);
  }
  /** BullMQ's `prefix` option for queue shard `shard`: its keys become `<prefix>:{<shard tag>}:<queue>:…`. */
  queuePrefix(shard = 0): string {
    const prefix = this.#queuePrefixes[shard];
    if (prefix === undefined) throw new RangeError(`queue shard ${shard} does not exist: queues.shards is ${this.queueShards}`);
    return prefix;
  }
  /** BullMQ's prefix of every queue shard, shard 0 first. */
  queuePrefixes(): readonly string[] {
    return this.#queuePrefixes;
  }
  /** A job's hash in its queue, as BullMQ names it: `<prefix>:{<shard tag>}:<queue>:<jobId>`, on the shard of the run it is about. */
  job(queue: string, jobId: string, runId: string): string {
    return `${this.queuePrefix(this.shardOf(runId))}:${queue}:${jobId}`;
  }
  run(runId: string): string {
    return `${this.prefix}:run:${runTag(runId)}`;
  }
  /** Every run by createdAt; a key of its own slot, never written in a run's script. */
  runIndex(): string {
    return `${this.prefix}:runs`;
  }
  /** Each retired run by when its keys expire (ms), so the run index and the metrics cursors forget it then. */
  runExpiries(): string {
    return `${this.prefix}:run-expiries`;
  }
  /**
   * The runs not yet ended, scored by when each last changed or was last
   * checked by the re-drive sweep. Written by single-key commands beside a
   * run's compare-and-set, never in it (on a cluster it is in another slot);
   * tagged `{redrive}` with the sweep's lease.
   */
  activeRuns(): string {
    return `${this.prefix}:active-runs:{redrive}`;
  }
  /** Each run's deadline (ms since the epoch) until it fires or the run ends; controllers poll it (RunDeadlines). */
  runDeadlines(): string {
    return `${this.prefix}:run-deadlines:{redrive}`;
  }
  /** Which controller sweeps for lost jobs now (SET NX PX); it expires on its own. */
  redriveLease(): string {
    return `${this.prefix}:redrive-lease:{redrive}`;
  }
  /** The lease on job `jobId` of run `runId` while a process runs it in place of its queue (HandoffLeases). */
  handoffLease(runId: string, jobId: string): string {
    return `${this.prefix}:handoff:${runTag(runId)}:${jobId}`;
  }
  trace(runId: string): string {
    return `${this.prefix}:trace:${runTag(runId)}`;
  }
  /** Prompt copies of a run's trace, beside the stream under the same name, so `trace:<run>*` finds all of a trace. */
  traceBlobs(runId: string): string {
    return `${this.trace(runId)}:blobs`;
  }
  /** With live OpenTelemetry: the W3C context of the span that submitted the run, so a person's later decision joins its trace. */
  traceContext(runId: string): string {
    return `${this.trace(runId)}:otel-context`;
  }
  traceSeq(runId: string): string {
    return `${this.prefix}:trace-seq:${runTag(runId)}`;
  }
  artifact(artifactId: string): string {
    return `${this.prefix}:artifact:${artifactId}`;
  }
  /** The ids of a run's artifacts, so a run can be deleted whole. */
  runArtifacts(runId: string): string {
    return `${this.prefix}:run-artifacts:${runTag(runId)}`;
  }
  approval(approvalId: string): string {
    return `${this.prefix}:approval:{approvals}:${approvalId}`;
  }
  approvalIndex(): string {
    return `${this.prefix}:approvals:{approvals}`;
  }
  approvalByAction(actionHash: string): string {
    return `${this.prefix}:approval-action:{approvals}:${actionHash}`;
  }
  /** The ids of a run's approvals, in the approvals' slot, so its approvals expire with the run. */
  runApprovals(runId: string): string {
    return `${this.prefix}:run-approvals:{approvals}:${runId}`;
  }
  lesson(lessonId: string): string {
    return `${this.prefix}:lesson:{lessons}:${lessonId}`;
  }
  lessonIndex(): string {
    return `${this.prefix}:lessons:{lessons}`;
  }
  /**
   * A call's intent or outcome record. Its key (`runId:stepId:attempt:index`)
   * starts with its run id, which tags it into the run's slot: the write
   * checks the step's owner key in the same script.
   */
  idempotency(key: string): string {
    const split = key.indexOf(":");
    const runId = split === -1 ? key : key.slice(0, split);
    return `${this.prefix}:idem:${runTag(runId)}${key.slice(runId.length)}`;
  }
  /** The keys of a run's intent and outcome records, so they expire with the run. */
  runIdempotency(runId: string): string {
    return `${this.prefix}:run-idem:${runTag(runId)}`;
  }
  checkpoint(runId: string, stepId: string): string {
    return `${this.prefix}:checkpoint:${runTag(runId)}:${stepId}`;
  }
  /** The token of the worker that owns a step now (CheckpointStore.claim): a step's writes land only while it is theirs. */
  stepOwner(runId: string, stepId: string): string {
    return `${this.checkpoint(runId, stepId)}:owner`;
  }
  toolCache(runId: string): string {
    return `${this.prefix}:tool-cache:${runTag(runId)}`;
  }
  /** The deployment's counters, folded from the run traces (TraceFold). */
  metricsTotals(): string {
    return `${this.prefix}:metrics:{metrics}:totals`;
  }
  /** Per run, how far TraceFold has folded its trace: the last seq, or `end`. */
  metricsCursors(): string {
    return `${this.prefix}:metrics:{metrics}:folded`;
  }
  metricsLock(): string {
    return `${this.prefix}:metrics:{metrics}:lock`;
  }
  /**
   * One provider account and model's shared rate budget: `<p>:ratelimit:{<provider>/<model>}:<part>`,
   * its parts in one slot so the limiter's scripts run on Redis Cluster.
   */
  rateLimit(provider: string, model: string, part: string): string {
    return `${this.prefix}:ratelimit:{${tagSafe(provider)}/${tagSafe(model)}}:${part}`;
  }
  /** Every limited provider and model ("<provider>\t<model>"), for `/metrics` and `rein models`. */
  rateLimitIndex(): string {
    return `${this.prefix}:ratelimits`;
  }
  /** Every build a role process was started with (a set), so the queues view lists each build's step queue, its workers gone or not. */
  builds(): string {
    return `${this.prefix}:builds`;
  }
  /** The `queues.shards` the deployment's role processes run with (claimQueueShards). */
  queueShardCount(): string {
    return `${this.prefix}:queue-shards`;
  }
  /** A pub/sub channel, not a key: nothing is stored under it. */
  live(runId: string): string {
    return `${this.prefix}:live:${runId}`;
  }
  /** The run's tool calls running now, a field per step and call (CallsInFlight); short-lived, it expires on its own. */
  callsInFlight(runId: string): string {
    return `${this.prefix}:live-calls:${runTag(runId)}`;
  }
  /**
   * A pub/sub channel, not a key: the run store publishes on it the moment a
   * run's status says its steps must stop (see RunEndWatch).
   */
  runEnded(): string {
    return `${this.prefix}:run-ended`;
  }
  /** Everything under the prefix, for tests and `rein runs prune`. */
  pattern(): string {
    return `${this.prefix}:*`;
  }
}

/** A name inside a hash tag: a brace would end the tag early. */
function tagSafe(name: string): string {
  return name.replace(/[{}]/g, "_");
}

/** A run's hash tag: every key of one run lands in one cluster slot. */
function runTag(runId: string): string {
  return `{${runId}}`;
}
