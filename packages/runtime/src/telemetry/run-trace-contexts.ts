import { z } from "zod";
import type { RedisKeys } from "../redis/keys.ts";
import type { RedisClient } from "../redis/redis-client.ts";

/**
 * Where each run's trace begins, kept in Redis for every process: the
 * propagation metadata (W3C traceparent, as BullMQ's telemetry hook
 * serialises it) of the span that enqueued the run's `goal.submitted`.
 * Work inside a job inherits its trace from the job; an event a person
 * sends later (an approval decided, a reply, a cancel) starts outside any
 * span, and without this would start a trace of its own.
 */
export class RunTraceContexts {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    /** As long as the run's trace is kept (`retention.traceTtlSeconds`); without it, until the run is deleted. */
    private readonly ttlSeconds: number | undefined,
  ) {}

  async remember(runId: string, metadata: string): Promise<void> {
    const key = this.keys.traceContext(runId);
    if (this.ttlSeconds === undefined) await this.redis.set(key, metadata);
    else await this.redis.set(key, metadata, "EX", this.ttlSeconds);
  }

  async recall(runId: string): Promise<string | undefined> {
    return (await this.redis.get(this.keys.traceContext(runId))) ?? undefined;
  }
}

/** The propagation metadata's one field Rein reads. */
const Carrier = z.object({ traceparent: z.string().min(1).optional() });

/**
 * Whether propagation metadata (the JSON carrier BullMQ's telemetry hook
 * writes) names a trace. Metadata that is not such a carrier names none:
 * the event then joins its run's trace instead.
 */
export function carriesTrace(metadata: string): boolean {
  let json: unknown;
  try {
    json = JSON.parse(metadata);
  } catch {
    return false;
  }
  return Carrier.safeParse(json).data?.traceparent !== undefined;
}
