import type { Redis } from "ioredis";
import { z } from "zod";
import { errorMessage, ReinError } from "@rein/contracts";
import { RunStatus, stopsSteps } from "@rein/contracts/run";
import type { Logger } from "@rein/guard";
import type { RedisKeys } from "../redis/keys.ts";
import type { RedisClient } from "../redis/redis-client.ts";
import { parseChannelMessage } from "../redis/channel-message.ts";

/**
 * What the run store publishes on the run-ended channel when a run's status stops its steps (RunStore, compareAndSet),
 * and what the controller publishes when a group's join cancels some steps of a run that goes on (`stepIds`).
 */
export const RunEnded = z.object({ runId: z.string().min(1), status: RunStatus, stepIds: z.array(z.string()).optional() });
export type RunEnded = z.infer<typeof RunEnded>;

/** One watched step's view of its run: `signal` aborts, with a `run_ended` error, once the run ends. */
export interface WatchedRun {
  signal: AbortSignal;
  release(): void;
}

/**
 * What a worker process knows, without asking Redis on any turn, about the
 * runs of the steps it runs: one subscription per process to the channel on
 * which the run store announces, atomically with the write, every run whose
 * status stops its steps (cancelled, failed, done, escalated), on whatever
 * machine the controller wrote it. A watched step's signal aborts the moment
 * the announcement arrives, which reaches its in-flight model call and tool call.
 *
 * Pub/sub keeps nothing for a subscriber that was away: after every
 * reconnect the watch resubscribes and then reads the status of each run it
 * watches, so an announcement missed while disconnected still stops the step.
 * The step's own turn write (which refuses to land in an ended run) remains
 * the last fence.
 */
export class RunEndWatch {
  /** Per run, each watched step's controller with the step it stops (none: a watch from before steps were named). */
  private readonly watched = new Map<string, Map<AbortController, string | undefined>>();
  private subscriber: RedisClient | undefined;
  private subscribed: Promise<void> | undefined;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly logger: Logger,
  ) {}

  /**
   * Subscribes, once; resolves when subscribed, so a run that ends after a
   * step is watched is heard of. A subscription that fails is logged and the
   * watch goes on without it (turn writes still refuse an ended run).
   */
  start(): Promise<void> {
    this.subscribed ??= this.subscribe();
    return this.subscribed;
  }

  /** Watches `runId` for one step, until `release`. Call it before checking that the run still wants the step. */
  watch(runId: string, stepId?: string): WatchedRun {
    const ended = new AbortController();
    let controllers = this.watched.get(runId);
    if (!controllers) {
      controllers = new Map();
      this.watched.set(runId, controllers);
    }
    controllers.set(ended, stepId);
    return {
      signal: ended.signal,
      release: () => {
        const current = this.watched.get(runId);
        current?.delete(ended);
        if (current?.size === 0) this.watched.delete(runId);
      },
    };
  }

  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = undefined;
    await subscriber?.quit().catch(() => subscriber.disconnect());
  }

  /** The subscriber's name on a single Redis (CLIENT SETNAME). */
  get connectionName(): string {
    return `${this.keys.prefix}:run-end-watch`;
  }

  private async subscribe(): Promise<void> {
    // Named, so CLIENT LIST says which connection waits for run ends.
    const subscriber = this.redis.isCluster
      ? this.redis.duplicate()
      : (this.redis as Redis).duplicate({ connectionName: this.connectionName });
    this.subscriber = subscriber;
    const channel = this.keys.runEnded();
    subscriber.on("message", (from: string, message: string) => {
      if (from !== channel) return;
      const parsed = parseChannelMessage(RunEnded, message);
      if (!parsed.success) {
        this.logger.warn({ problem: parsed.error.issues[0]?.message }, "malformed run-ended message ignored");
        return;
      }
      this.end(parsed.data);
    });
    let connectedOnce = false;
    subscriber.on("ready", () => {
      if (!connectedOnce) {
        connectedOnce = true;
        return;
      }
      this.catchUp(subscriber, channel).catch((error: unknown) => {
        this.logger.warn(
          { err: errorMessage(error) },
          "could not check the watched runs after a reconnect; their steps stop at their next turn write",
        );
      });
    });
    try {
      await subscriber.subscribe(channel);
    } catch (error) {
      this.logger.warn({ err: errorMessage(error) }, "could not subscribe to run ends; running steps stop only at their next turn write");
    }
  }

  /** After a reconnect: subscribed again first, so a run that ends during the check is heard of either way. */
  private async catchUp(subscriber: RedisClient, channel: string): Promise<void> {
    await subscriber.subscribe(channel);
    const runIds = [...this.watched.keys()];
    const statuses = await Promise.all(runIds.map((runId) => this.redis.hget(this.keys.run(runId), "status")));
    for (const [index, runId] of runIds.entries()) {
      const status = RunStatus.safeParse(statuses[index]);
      if (status.success && stopsSteps(status.data)) this.end({ runId, status: status.data });
    }
  }

  private end({ runId, status, stepIds }: RunEnded): void {
    const controllers = this.watched.get(runId);
    if (!controllers) return;
    if (stepIds) {
      for (const [ended, stepId] of controllers) {
        if (stepId === undefined || !stepIds.includes(stepId)) continue;
        ended.abort(
          new ReinError("run_ended", `step ${stepId} of run ${runId} was cancelled: its group joined without it; the step stops here`, {
            details: { status },
          }),
        );
      }
      return;
    }
    if (!stopsSteps(status)) return;
    for (const ended of controllers.keys()) {
      ended.abort(
        new ReinError("run_ended", `run ${runId} ended (${status}) while its step ran; the step stops here`, { details: { status } }),
      );
    }
  }
}
