import { LuaScript } from "../redis/lua-script.ts";
import { type TraceWriter, type TraceEventInput, type TypedTraceEvent, typedTraceEvent } from "@rein/trace";
import type { RedisClient } from "../redis/redis-client.ts";
import { ReinError } from "@rein/contracts";
import { TraceEvent } from "@rein/contracts/run";
import type { RedisKeys } from "../redis/keys.ts";
import type { Redactor } from "@rein/guard";
import type { TraceBatch } from "../stores/turn-write.ts";
import { compactTrace, type TraceCompaction, type TraceCompactionOptions } from "./trace-compaction.ts";
import { decodeEntry, type RawTraceEntry, storedEventsOf } from "./trace-entries.ts";

// The seq counter and the stream entry are written in one script, so stream
// order and seq order are the same even with many writers. ARGV[2], when not
// empty, is the retention TTL: refreshed on every append, so a trace expires
// that long after its run's last event, never in the middle of a run.
const append = new LuaScript(`
local seq = redis.call('INCRBY', KEYS[2], #ARGV - 1) - (#ARGV - 1)
for i = 2, #ARGV do
  seq = seq + 1
  redis.call('XADD', KEYS[1], '*', 'seq', seq, 'event', ARGV[i])
end
if ARGV[1] ~= '' then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  redis.call('EXPIRE', KEYS[2], ARGV[1])
end
return seq
`);

/** What writers of trace events need: TraceLog, or a TraceBuffer in front of it. */
export interface TraceLogOptions {
  /** Applied to every event's JSON before it is stored (secret and PII redaction). */
  redact?: (json: string) => string;
  /** Seconds to keep a run's trace after its last event; absent keeps it (config `retention.traceTtlSeconds`). */
  ttlSeconds?: number;
  /** Sees every event as it is written, redacted as it is stored (live OpenTelemetry spans). */
  observe?: (event: TraceEventInput) => void;
}

// Prompt blobs redacted lately, by id. A blob's id is the sha256 of its text,
// so the same id is the same text: the system prompt, tool list and output
// schema of a role come again with every run, each kilobytes long, and each
// pass scans them for every secret's encodings.
const REDACTED_BLOBS_KEPT = 256;

/** A run's audit trail: one Redis Stream per run, appended with XADD. */
export class TraceLog implements TraceWriter {
  private readonly redactedBlobs = new Map<string, string>();

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly options: TraceLogOptions = {},
  ) {}

  /** Whether every event is redacted by `redactor` before it is stored or observed (TraceSink.redactsWith). */
  redactsWith(redactor: Redactor): boolean {
    return this.options.redact === redactor.redactJson;
  }

  /** Seconds a trace is kept after its last event, if retention is set. */
  get ttlSeconds(): number | undefined {
    return this.options.ttlSeconds;
  }

  /**
   * The stored form of an event, redacted, without its seq (assigned when it
   * is written), and without what a reader restores: the run (the stream's
   * key names it), schema version 1 and absent step ids. A long step writes
   * thousands of events; those fields were ~70 bytes of each.
   */
  encode(input: TraceEventInput): string {
    const body = {
      schemaVersion: 1 as const,
      ts: input.ts ?? new Date().toISOString(),
      stepId: input.stepId ?? null,
      parentStepId: input.parentStepId ?? null,
      ...input,
    };
    const { schemaVersion, runId: _runId, stepId, parentStepId, ...rest } = body;
    const stored = {
      ...(schemaVersion === 1 ? {} : { schemaVersion }),
      ...(stepId === null ? {} : { stepId }),
      ...(parentStepId === null ? {} : { parentStepId }),
      ...rest,
    };
    const json = JSON.stringify(stored);
    const redacted = this.options.redact ? this.options.redact(json) : json;
    // Observers export what they see (telemetry spans carry a failed call's error): they get the event as stored.
    this.options.observe?.(redacted === json ? body : { ...body, ...JSON.parse(redacted) });
    return redacted;
  }

  async append(input: TraceEventInput): Promise<TypedTraceEvent> {
    const json = this.encode(input);
    const seq = await this.appendEncoded(input.runId, [json]);
    return typedTraceEvent(TraceEvent.parse(restored(input.runId, JSON.parse(json), seq)));
  }

  /** Writes events of run `runId` already encoded (encode), in order, in one script call; returns the last one's seq. */
  async appendEncoded(runId: string, events: readonly string[]): Promise<number> {
    const ttl = this.options.ttlSeconds ? String(this.options.ttlSeconds) : "";
    return Number(await append.run(this.redis, [this.keys.trace(runId), this.keys.traceSeq(runId)], [ttl, ...events]));
  }

  /** Encoded events and blobs of one run as a batch for writeTurn, blobs redacted as putBlobs does. */
  batch(runId: string, events: readonly string[], blobs: ReadonlyMap<string, string>): TraceBatch {
    const { redact } = this.options;
    return {
      stream: this.keys.trace(runId),
      seq: this.keys.traceSeq(runId),
      blobs: this.blobsKey(runId),
      ttlSeconds: this.options.ttlSeconds,
      events,
      blobEntries: [...blobs].map(([id, content]) => [id, redact ? this.redactBlob(id, content, redact) : content] as const),
    };
  }

  async read(runId: string, fromSeq = 0): Promise<TypedTraceEvent[]> {
    const entries = await this.redis.xrangeBuffer(this.keys.trace(runId), "-", "+");
    return entries.flatMap((entry) => this.parse(runId, entry, fromSeq));
  }

  /**
   * Yields events as they are appended, starting after `fromSeq`, until
   * `signal` aborts. Uses XREAD BLOCK on a dedicated connection.
   */
  async *follow(runId: string, signal: AbortSignal, blockMs = 500): AsyncGenerator<TypedTraceEvent> {
    const reader = this.redis.duplicate();
    let lastId = "0-0";
    // A retiring run's trace is packed (compact) under a follower: the chunk that
    // replaces what it read comes again, with a later id. Seq says what was seen.
    let lastSeq = 0;
    try {
      while (!signal.aborted) {
        const reply = await reader.xreadBuffer("COUNT", 100, "BLOCK", blockMs, "STREAMS", this.keys.trace(runId), lastId);
        if (!reply) continue;
        for (const [, entries] of reply) {
          for (const entry of entries) {
            lastId = entry[0].toString();
            for (const event of this.parse(runId, entry, lastSeq)) {
              lastSeq = event.seq;
              yield event;
            }
          }
        }
      }
    } finally {
      reader.disconnect();
    }
  }

  /**
   * Stores content-addressed blobs of a run (prompt copies): each id is the
   * `sha256:` of the original text, so a part repeated across model calls
   * (the system prompt, earlier messages) is stored once. One HSET of every
   * field: rewriting a field that is there writes the same text again, and
   * costs Redis less than a command per blob.
   */
  async putBlobs(runId: string, blobs: ReadonlyMap<string, string>): Promise<void> {
    if (blobs.size === 0) return;
    const key = this.blobsKey(runId);
    const { redact } = this.options;
    const fields = [...blobs].flatMap(([id, content]) => [id, redact ? this.redactBlob(id, content, redact) : content]);
    if (this.options.ttlSeconds)
      await this.redis
        .multi()
        .hset(key, ...fields)
        .expire(key, this.options.ttlSeconds)
        .exec();
    else await this.redis.hset(key, ...fields);
  }

  async readBlobs(runId: string): Promise<Record<string, string>> {
    return this.redis.hgetall(this.blobsKey(runId));
  }

  /**
   * Writes events recorded elsewhere (an exported trace) with their own
   * seq, ts and ids, and the blobs they reference. Refuses to write over an
   * existing trace: an import never merges two histories.
   */
  async load(runId: string, events: readonly TraceEvent[], blobs: Readonly<Record<string, string>> = {}): Promise<void> {
    if ((await this.redis.exists(this.keys.trace(runId), this.keys.traceSeq(runId))) > 0) {
      throw new ReinError(
        "version_conflict",
        `run ${runId} already has a trace under this prefix; expected an empty prefix to import into`,
      );
    }
    const multi = this.redis.multi();
    let lastSeq = 0;
    for (const event of [...events].sort((a, b) => a.seq - b.seq)) {
      if (event.runId !== runId) throw new ReinError("contract_invalid", `event ${event.seq} belongs to run ${event.runId}, not ${runId}`);
      const { seq, ...body } = event;
      multi.xadd(this.keys.trace(runId), "*", "seq", String(seq), "event", JSON.stringify(body));
      lastSeq = seq;
    }
    multi.set(this.keys.traceSeq(runId), String(lastSeq));
    const blobEntries = Object.entries(blobs);
    if (blobEntries.length > 0) multi.hset(this.blobsKey(runId), Object.fromEntries(blobEntries));
    await multi.exec();
  }

  /** Packs a finished run's trace into deflated chunks (see compactTrace); reads are unchanged. */
  async compact(runId: string, options: TraceCompactionOptions): Promise<TraceCompaction | null> {
    return compactTrace(this.redis, this.keys.trace(runId), runId, options);
  }

  async remove(runId: string): Promise<void> {
    await this.redis.del(this.keys.trace(runId), this.keys.traceSeq(runId), this.blobsKey(runId));
  }

  private redactBlob(id: string, content: string, redact: (text: string) => string): string {
    const kept = this.redactedBlobs.get(id);
    if (kept !== undefined) return kept;
    const redacted = redact(content);
    if (this.redactedBlobs.size >= REDACTED_BLOBS_KEPT) this.redactedBlobs.delete(this.redactedBlobs.keys().next().value ?? "");
    this.redactedBlobs.set(id, redacted);
    return redacted;
  }

  private blobsKey(runId: string): string {
    return this.keys.traceBlobs(runId);
  }

  /** The events of one stream entry after `fromSeq`, whole and checked. */
  private parse(runId: string, entry: RawTraceEntry, fromSeq: number): TypedTraceEvent[] {
    return storedEventsOf(runId, decodeEntry(runId, entry), fromSeq).map(({ seq, body }) => {
      const parsed = TraceEvent.safeParse(restored(runId, body, seq));
      if (!parsed.success) {
        throw new ReinError("contract_invalid", `trace event ${seq} of run ${runId} is malformed: ${parsed.error.message}`);
      }
      return typedTraceEvent(parsed.data);
    });
  }
}

/** An event as stored (TraceLog.encode; an import stores it whole) with what encode leaves out put back. */
function restored(runId: string, stored: unknown, seq: number): unknown {
  return { schemaVersion: 1, runId, stepId: null, parentStepId: null, ...(typeof stored === "object" ? stored : {}), seq };
}
