import type {
  ObservedLimits,
  RateBudget,
  RateDemand,
  RateDimension,
  RateLimiter,
  RateScope,
  RateSnapshot,
  RateWaitReason,
  ReserveOutcome,
  ReserveRequest,
} from "@rein/models/rate-limit";
import { z } from "zod";
import { RedisKeys } from "../redis/keys.ts";
import type { LuaScript } from "../redis/lua-script.ts";
import type { RedisClient } from "../redis/redis-client.ts";
import { OBSERVE, PAUSE, RESERVE, SETTLE, SNAPSHOT } from "./rate-limit-scripts.ts";

export interface RedisRateLimiterOptions {
  /**
   * Refill time kept in hand on every dimension, so calls that reach the
   * provider a little closer together than they left Rein still fit its
   * bucket. @defaultValue 250
   */
  safetyMs?: number;
}

const parts = ["state", "inflight", "waiters", "seen", "runs", "reservations"] as const;
const dimensions: readonly RateDimension[] = ["requests", "inputTokens", "outputTokens", "tokens"];
const reasons: Record<string, RateWaitReason> = {
  requests: "requests",
  inputTokens: "input_tokens",
  outputTokens: "output_tokens",
  tokens: "tokens",
  in_flight: "in_flight",
  paused: "paused",
  queued: "queued",
};
const ReserveReply = z.tuple([z.number(), z.number(), z.string()]);

/**
 * The fleet's rate budget in Redis: each operation is one Lua script, one
 * round trip, on the keys of one provider account and model (one slot).
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly indexed = new Set<string>();

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly options: RedisRateLimiterOptions = {},
  ) {}

  /** A limiter on the keys of the deployment whose prefix is `prefix`, for a command that opens no whole runtime (`rein models`). */
  static forPrefix(redis: RedisClient, prefix: string, options: RedisRateLimiterOptions = {}): RedisRateLimiter {
    return new RedisRateLimiter(redis, new RedisKeys(prefix), options);
  }

  async reserve(scope: RateScope, request: ReserveRequest): Promise<ReserveOutcome> {
    await this.index(scope);
    const reply = ReserveReply.parse(
      await this.run(RESERVE, scope, request.budget, request.now, [
        request.id,
        request.runId ?? "",
        whole(request.demand.inputTokens),
        whole(request.demand.outputTokens),
        whole(request.leaseMs),
        whole(request.waitedMs),
        whole(this.options.safetyMs ?? 250),
      ]),
    );
    if (reply[0] === 1) return { granted: true };
    return { granted: false, waitMs: reply[1], reason: reasons[reply[2]] ?? "queued" };
  }

  async settle(scope: RateScope, id: string, used: RateDemand, budget: RateBudget, now?: number): Promise<void> {
    await this.run(SETTLE, scope, budget, now, [id, whole(used.inputTokens), whole(used.outputTokens)]);
  }

  async withdraw(scope: RateScope, id: string): Promise<void> {
    const keyOf = (part: string) => this.keys.rateLimit(scope.provider, scope.model, part);
    await this.redis.multi().zrem(keyOf("waiters"), id).zrem(keyOf("seen"), id).exec();
  }

  async observe(scope: RateScope, observed: ObservedLimits, budget: RateBudget, now?: number): Promise<void> {
    const said = dimensions.flatMap((dimension) => {
      const seen = observed[dimension];
      return [seen?.limit ?? -1, seen?.remaining ?? -1, seen?.resetAt ?? -1].map(whole);
    });
    await this.run(OBSERVE, scope, budget, now, said);
  }

  async pause(scope: RateScope, milliseconds: number, now?: number): Promise<void> {
    await this.run(PAUSE, scope, {}, now, [whole(milliseconds)]);
  }

  async snapshot(scope: RateScope, budget: RateBudget, now?: number): Promise<RateSnapshot> {
    const reply = z.array(z.string()).parse(await this.run(SNAPSHOT, scope, budget, now, []));
    const fields = new Map<string, string>();
    for (let index = 0; index + 1 < reply.length; index += 2) fields.set(reply[index] as string, reply[index + 1] as string);
    const number = (name: string): number | undefined => {
      const value = fields.get(name);
      return value === undefined ? undefined : Number(value);
    };
    const snapshot: RateSnapshot = {
      ...scope,
      configured: budget,
      learned: {},
      available: {},
      inFlight: number("inFlight") ?? 0,
      waiting: number("waiting") ?? 0,
      granted: number("granted") ?? 0,
      waits: number("waits") ?? 0,
      waitedMs: number("waitedMs") ?? 0,
      rateLimited: number("rateLimited") ?? 0,
    };
    const pausedUntil = number("pausedUntil") ?? 0;
    if (pausedUntil > (number("now") ?? 0)) snapshot.pausedUntil = pausedUntil;
    for (const dimension of dimensions) {
      const available = number(`available:${dimension}`);
      if (available !== undefined) snapshot.available[dimension] = Math.floor(available);
      const limit = number(`learned:${dimension}:limit`);
      const remaining = number(`learned:${dimension}:remaining`);
      const at = number(`learned:${dimension}:seenAt`);
      if (limit !== undefined || remaining !== undefined) {
        snapshot.learned[dimension] = {
          ...(limit !== undefined ? { limit } : {}),
          ...(remaining !== undefined ? { remaining } : {}),
          at: at ?? 0,
        };
      }
    }
    return snapshot;
  }

  /** Every provider and model some process of the deployment has limited. */
  async scopes(): Promise<RateScope[]> {
    const members = await this.redis.smembers(this.keys.rateLimitIndex());
    return members.flatMap((member) => {
      const [provider, model] = member.split("\t");
      return provider && model ? [{ provider, model }] : [];
    });
  }

  private async index(scope: RateScope): Promise<void> {
    const member = `${scope.provider}\t${scope.model}`;
    if (this.indexed.has(member)) return;
    await this.redis.sadd(this.keys.rateLimitIndex(), member);
    this.indexed.add(member);
  }

  private run(script: LuaScript, scope: RateScope, budget: RateBudget, now: number | undefined, args: string[]): Promise<unknown> {
    const keys = parts.map((part) => this.keys.rateLimit(scope.provider, scope.model, part));
    const limits = [
      budget.requestsPerMinute,
      budget.inputTokensPerMinute,
      budget.outputTokensPerMinute,
      budget.tokensPerMinute,
      budget.maxInFlight,
    ];
    return script.run(this.redis, keys, [
      now === undefined ? "" : whole(now),
      ...limits.map((limit) => (limit === undefined ? "-1" : whole(limit))),
      ...args,
    ]);
  }
}

const whole = (value: number): string => String(Math.round(value));
