import type { RedisClient } from "../redis/redis-client.ts";
import type { Logger } from "../logger.ts";
import type { RedisKeys } from "../redis/keys.ts";
import { LiveEvent } from "./live-event.ts";
import { parseChannelMessage } from "../redis/channel-message.ts";

export interface LiveSubscription {
  close(): Promise<void>;
}

/**
 * A run's live channel: model text deltas on Redis pub/sub
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
  private readonly now: () => number;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly logger?: Logger,
    options: { now?: () => number } = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Fire and forget: a live view that misses a delta must never fail or slow
   * the model call. When a publish reached no subscriber, the run's events
   * are dropped for a second before one is sent again to ask: a worker turn
   * spent more on two publishes nobody received than on its durable write.
   * A view that joins meanwhile misses at most that second, as one that
   * joins late does. On a cluster a publish counts only the subscribers of
   * the node it went to, so there every event is sent.
   */
  publish(event: LiveEvent): void {
    const { runId } = event;
    const quietUntil = this.unheard.get(runId);
    if (quietUntil !== undefined) {
      if (this.now() < quietUntil) return;
      this.unheard.delete(runId);
    }
    this.redis.publish(this.keys.live(runId), JSON.stringify(event)).then(
      (listeners) => {
        if (listeners > 0) this.unheard.delete(runId);
        else if (!this.redis.isCluster) this.quiet(runId);
      },
      (error: unknown) => {
        this.logger?.warn({ err: error, runId }, "live event not published");
      },
    );
  }

  private quiet(runId: string): void {
    // Bounded: a long-lived worker sees many runs, and a run it no longer publishes for is never asked about again.
    if (this.unheard.size >= UNHEARD_RUNS) this.unheard.delete(this.unheard.keys().next().value as string);
    this.unheard.set(runId, this.now() + QUIET_MS);
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

const QUIET_MS = 1_000;
const UNHEARD_RUNS = 1_000;
