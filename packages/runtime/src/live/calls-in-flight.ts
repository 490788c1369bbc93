import { z } from "zod";
import type { Logger } from "@rein/guard";
import type { RedisKeys } from "../redis/keys.ts";
import type { RedisClient } from "../redis/redis-client.ts";

/** A tool call a worker is running now, as a view shows it before the step's turn write makes it durable. */
export const CallInFlight = z.object({
  runId: z.string(),
  stepId: z.string(),
  /** The step's attempt, as its `step.dispatched` names it. */
  attempt: z.number().int().positive(),
  callId: z.string(),
  tool: z.string(),
  index: z.number().int().nonnegative(),
  startedAt: z.string(),
  /** Redacted; absent above 4 KiB. */
  args: z.unknown().optional(),
  /** The last progress report the trace keeps. */
  progress: z.object({ progress: z.number(), total: z.number().optional(), message: z.string().optional() }).optional(),
});
export type CallInFlight = z.infer<typeof CallInFlight>;

type CallAddress = Pick<CallInFlight, "runId" | "stepId" | "index">;

interface Tracked {
  entry: CallInFlight;
  /** Epoch ms after which the record may go: the step's deadline, when nothing can still be running. */
  until: number;
  timer?: NodeJS.Timeout;
  written: boolean;
}

/**
 * The tool calls running now, per run, in one small hash
 * (`<prefix>:live-calls:{runId}`, a field per step and call index), so a
 * view that opens in the middle of a long call (`GET /runs/:id/view`) sees
 * it: the live channel keeps no history, and the trace has a call only once
 * its turn is written, after it ended.
 *
 * Not the record of anything: a call is written only once it has run for
 * `visibleAfterMs` (most calls end sooner and cost Redis nothing), removed
 * when it ends, and the hash expires at the step's deadline, so a worker
 * that died mid-call leaves nothing for long. A view drops an entry the
 * durable trace already ends. Writes are fire and forget, like the live
 * channel's: a view that misses a call must never fail or slow it.
 */
export class CallsInFlight {
  private readonly tracked = new Map<string, Tracked>();
  private readonly visibleAfterMs: number;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly logger?: Logger,
    options: { visibleAfterMs?: number } = {},
  ) {
    this.visibleAfterMs = options.visibleAfterMs ?? VISIBLE_AFTER_MS;
  }

  started(entry: CallInFlight, until: number): void {
    const id = idOf(entry);
    this.finished(entry);
    const tracked: Tracked = { entry, until, written: false };
    tracked.timer = setTimeout(() => this.write(id, tracked), this.visibleAfterMs);
    tracked.timer.unref();
    this.tracked.set(id, tracked);
  }

  progress(address: CallAddress, progress: NonNullable<CallInFlight["progress"]>): void {
    const id = idOf(address);
    const tracked = this.tracked.get(id);
    if (!tracked) return;
    tracked.entry = { ...tracked.entry, progress };
    if (tracked.written) this.write(id, tracked);
  }

  finished(address: CallAddress): void {
    const id = idOf(address);
    const tracked = this.tracked.get(id);
    if (!tracked) return;
    this.tracked.delete(id);
    clearTimeout(tracked.timer);
    if (!tracked.written) return;
    this.redis.hdel(this.keys.callsInFlight(address.runId), fieldOf(address)).catch((error: unknown) => this.failed(error, address));
  }

  /** The run's calls in flight as workers last wrote them, oldest first; unreadable entries are left out. */
  async read(runId: string): Promise<CallInFlight[]> {
    const fields = await this.redis.hgetall(this.keys.callsInFlight(runId));
    const calls: CallInFlight[] = [];
    for (const value of Object.values(fields)) {
      try {
        const parsed = CallInFlight.safeParse(JSON.parse(value));
        if (parsed.success) calls.push(parsed.data);
      } catch {
        // Written by another version, or cut short: a view does without it.
      }
    }
    return calls.sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.index - b.index);
  }

  private write(id: string, tracked: Tracked): void {
    if (this.tracked.get(id) !== tracked) return;
    tracked.written = true;
    const { entry } = tracked;
    const key = this.keys.callsInFlight(entry.runId);
    this.redis
      .pipeline()
      .hset(key, fieldOf(entry), JSON.stringify(entry))
      .pexpireat(key, tracked.until + EXPIRY_SLACK_MS)
      .exec()
      .catch((error: unknown) => this.failed(error, entry));
  }

  private failed(error: unknown, address: CallAddress): void {
    this.logger?.warn({ err: error, runId: address.runId, stepId: address.stepId }, "a call in flight was not recorded for views");
  }
}

const idOf = (address: CallAddress): string => `${address.runId}|${fieldOf(address)}`;
const fieldOf = (address: CallAddress): string => `${address.stepId}:${address.index}`;

// Most tool calls end sooner: they are seen in the trace a moment later, and cost this record nothing.
const VISIBLE_AFTER_MS = 500;
const EXPIRY_SLACK_MS = 60_000;
