import type { RedisClient } from "../redis/redis-client.ts";
import type { Logger } from "@rein/guard";
import type { RedisKeys } from "../redis/keys.ts";
import { LiveEvent } from "./live-event.ts";
import { parseChannelMessage } from "../redis/channel-message.ts";
import { CallsInFlight } from "./calls-in-flight.ts";

export interface LiveSubscription {
  close(): Promise<void>;
}

/**
 * A run's live channel: model text deltas and tool calls in flight on Redis pub/sub
 * (`<prefix>:live:<runId>`), so `rein run` and dashboards show output as it
 * arrives from workers on any machine.
 *
 * Deliberately not the trace: deltas are many tiny fragments whose sum the
 * trace already records once, in `model.responded`; pub/sub keeps no history
 * and costs nothing when nobody listens, which is right for a live view and
 * wrong for an audit trail. A subscriber that joins late misses deltas, never
 * content.
 */
export class LiveChannel {
  /** Runs whose last publish reached nobody, and until when their events are not sent. */
  private readonly unheard = new Map<string, number>();
  /** Runs whose last publish reached someone: their events go out as they come. */
  private readonly heard = new Set<string>();
  /** Runs asked about by a publish not yet answered, with the events that came meanwhile, to send in order if heard. */
  private readonly asking = new Map<string, LiveEvent[]>();
  private readonly now: () => number;
  /** The run's tool calls running now, for a view that opens mid-call (the channel keeps no history). */
  readonly calls: CallsInFlight;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly logger?: Logger,
    options: { now?: () => number } = {},
  ) {
    this.now = options.now ?? Date.now;
    this.calls = new CallsInFlight(redis, keys, logger);
  }

  /**
   * Fire and forget: a live view that misses a delta must never fail or slow
   * the model call. A run's first event asks whether anyone listens (the
   * publish's answer counts them); the events that come before the answer
   * are held, and sent in order if someone does. When nobody does, they are
   * dropped and the run's events are not sent for a second, before one asks
   * again: a worker turn spent more on publishes nobody received than on its
   * durable write, and an instant model streams a call's three events before
   * the first is answered. A view that joins meanwhile misses at most that
   * second, as one that joins late does. On a cluster a publish counts only
   * the subscribers of the node it went to, so there every event is sent.
   */
  publish(event: LiveEvent): void {
    const { runId } = event;
    if (this.redis.isCluster || this.heard.has(runId)) {
      this.send(event);
      return;
    }
    const held = this.asking.get(runId);
    if (held) {
      if (held.length < HELD_EVENTS) held.push(event);
      return;
    }
    const quietUntil = this.unheard.get(runId);
    if (quietUntil !== undefined) {
      if (this.now() < quietUntil) return;
      this.unheard.delete(runId);
    }
    this.asking.set(runId, []);
    this.send(event, (listeners) => {
      const waiting = this.asking.get(runId) ?? [];
      this.asking.delete(runId);
      if (listeners === 0) return this.quiet(runId);
      this.hear(runId);
      for (const next of waiting) this.send(next);
    });
  }

  private send(event: LiveEvent, answered?: (listeners: number) => void): void {
    this.redis.publish(this.keys.live(event.runId), JSON.stringify(event)).then(
      (listeners) => {
        if (answered) answered(listeners);
        else if (listeners === 0 && !this.redis.isCluster) {
          this.heard.delete(event.runId);
          this.quiet(event.runId);
        }
      },
      (error: unknown) => {
        this.asking.delete(event.runId);
        this.logger?.warn({ err: error, runId: event.runId }, "live event not published");
      },
    );
  }

  private quiet(runId: string): void {
    bounded(this.unheard);
    this.unheard.set(runId, this.now() + QUIET_MS);
  }

  private hear(runId: string): void {
    bounded(this.heard);
    this.heard.add(runId);
  }

  /** Resolves once subscribed, so every event published after it returns is delivered. */
  async subscribe(runId: string, onEvent: (event: LiveEvent) => void): Promise<LiveSubscription> {
    const subscriber = this.redis.duplicate();
    const channel = this.keys.live(runId);
    subscriber.on("message", (from: string, message: string) => {
      if (from !== channel) return;
      const parsed = parseChannelMessage(LiveEvent, message);
      if (parsed.success) onEvent(parsed.data);
      else this.logger?.warn({ runId, problem: parsed.error.issues[0]?.message }, "malformed live event ignored");
    });
    await subscriber.subscribe(channel);
    return {
      close: async () => {
        await subscriber.quit().catch(() => subscriber.disconnect());
      },
    };
  }
}

/** Makes room for one more run: a long-lived worker sees many, and a run it no longer publishes for is never asked about again. */
function bounded(runs: { size: number; keys(): IterableIterator<string>; delete(runId: string): boolean }): void {
  if (runs.size >= REMEMBERED_RUNS) runs.delete(runs.keys().next().value as string);
}

const QUIET_MS = 1_000;
const REMEMBERED_RUNS = 1_000;
// An answer takes one round trip: a stream that outruns it by more than this many events loses the rest of them, as a late joiner would.
const HELD_EVENTS = 1_000;
