import type { RedisClient } from "../redis/redis-client.ts";
import type { Logger } from "../logger.ts";
import type { RedisKeys } from "../redis/keys.ts";
import { LiveEvent } from "./live-event.ts";

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
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly logger?: Logger,
  ) {}

  /** Fire and forget: a live view that misses a delta must never fail or slow the model call. */
  publish(event: LiveEvent): void {
    this.redis.publish(this.keys.live(event.runId), JSON.stringify(event)).catch((error: unknown) => {
      this.logger?.warn({ err: error, runId: event.runId }, "live event not published");
    });
  }

  /** Resolves once subscribed, so every event published after it returns is delivered. */
  async subscribe(runId: string, onEvent: (event: LiveEvent) => void): Promise<LiveSubscription> {
    const subscriber = this.redis.duplicate();
    const channel = this.keys.live(runId);
    subscriber.on("message", (from: string, message: string) => {
      if (from !== channel) return;
      const parsed = LiveEvent.safeParse(parseJson(message));
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

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
