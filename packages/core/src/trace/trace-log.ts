import type { Redis } from "ioredis";
import { TraceEvent, type TraceEventInput } from "../contracts/index.ts";
import { ReinError } from "../errors.ts";
import type { RedisKeys } from "../redis/keys.ts";

// The seq counter and the stream entry are written in one script, so stream
// order and seq order are the same even with many writers.
const append = `
local seq = redis.call('INCR', KEYS[2])
redis.call('XADD', KEYS[1], '*', 'seq', seq, 'event', ARGV[1])
return seq
`;

export interface TraceLogOptions {
  /** Applied to every event's JSON before it is stored (secret and PII redaction). */
  redact?: (json: string) => string;
}

/** A run's audit trail: one Redis Stream per run, appended with XADD. */
export class TraceLog {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly options: TraceLogOptions = {},
  ) {}

  async append(input: TraceEventInput): Promise<TraceEvent> {
    const body = {
      schemaVersion: 1 as const,
      ts: input.ts ?? new Date().toISOString(),
      stepId: input.stepId ?? null,
      parentStepId: input.parentStepId ?? null,
      ...input,
    };
    let json = JSON.stringify(body);
    if (this.options.redact) json = this.options.redact(json);
    const seq = Number(await this.redis.eval(append, 2, this.keys.trace(input.runId), this.keys.traceSeq(input.runId), json));
    return TraceEvent.parse({ ...JSON.parse(json), seq });
  }

  async appendMany(inputs: readonly TraceEventInput[]): Promise<void> {
    for (const input of inputs) await this.append(input);
  }

  async read(runId: string, fromSeq = 0): Promise<TraceEvent[]> {
    const entries = await this.redis.xrange(this.keys.trace(runId), "-", "+");
    return entries.map(([, fields]) => this.parse(runId, fields)).filter((event) => event.seq > fromSeq);
  }

  /**
   * Yields events as they are appended, starting after `fromSeq`, until
   * `signal` aborts. Uses XREAD BLOCK on a dedicated connection.
   */
  async *follow(runId: string, signal: AbortSignal, blockMs = 500): AsyncGenerator<TraceEvent> {
    const reader = this.redis.duplicate();
    let lastId = "0-0";
    try {
      while (!signal.aborted) {
        const reply = await reader.xread("COUNT", 100, "BLOCK", blockMs, "STREAMS", this.keys.trace(runId), lastId);
        if (!reply) continue;
        for (const [, entries] of reply) {
          for (const [id, fields] of entries) {
            lastId = id;
            yield this.parse(runId, fields);
          }
        }
      }
    } finally {
      reader.disconnect();
    }
  }

  async remove(runId: string): Promise<void> {
    await this.redis.del(this.keys.trace(runId), this.keys.traceSeq(runId));
  }

  private parse(runId: string, fields: string[]): TraceEvent {
    const record: Record<string, string> = {};
    for (let index = 0; index + 1 < fields.length; index += 2) record[fields[index] as string] = fields[index + 1] as string;
    const parsed = TraceEvent.safeParse({ ...JSON.parse(record.event ?? "{}"), seq: Number(record.seq) });
    if (!parsed.success) {
      throw new ReinError("contract_invalid", `trace event ${record.seq} of run ${runId} is malformed: ${parsed.error.message}`);
    }
    return parsed.data;
  }
}
