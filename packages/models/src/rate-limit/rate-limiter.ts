import type { RateBudget } from "./rate-limits-config.ts";

/** Whose budget: one provider account (the configured provider name) and one model. */
export interface RateScope {
  provider: string;
  model: string;
}

/** Tokens a call is expected to use (reserved before it is sent) or used (settled after). */
export interface RateDemand {
  inputTokens: number;
  outputTokens: number;
}

export type RateWaitReason = "requests" | "input_tokens" | "output_tokens" | "tokens" | "in_flight" | "paused" | "queued";

export interface ReserveRequest {
  /** The reservation's id, the same on every try of one wait, so the call keeps its place in line. */
  id: string;
  demand: RateDemand;
  budget: RateBudget;
  /** The run asking: a run already served goes before a new one. */
  runId?: string;
  /** How long the in-flight slot is held if the reservation is never settled (a killed process). */
  leaseMs: number;
  /** How long this call has waited so far; counted in the model's wait statistics when it is granted. */
  waitedMs: number;
  /** Tests only: the limiter's clock in ms. @defaultValue the Redis server's clock */
  now?: number;
}

export type ReserveOutcome = { granted: true } | { granted: false; waitMs: number; reason: RateWaitReason };

/** What one response's headers said about one dimension. */
export interface ObservedDimension {
  limit?: number;
  remaining?: number;
  /** When the dimension is full again (ms since the epoch). */
  resetAt?: number;
}

/** Rate-limit headers of one response, in neutral terms. */
export interface ObservedLimits {
  requests?: ObservedDimension;
  inputTokens?: ObservedDimension;
  outputTokens?: ObservedDimension;
  tokens?: ObservedDimension;
}

export type RateDimension = keyof ObservedLimits;

/** One limited model as operators see it (`/metrics`, the dashboard, `rein models`). */
export interface RateSnapshot extends RateScope {
  configured: RateBudget;
  /** Limits the provider's headers stated, with what they said was left and when. */
  learned: Partial<Record<RateDimension, { limit?: number; remaining?: number; at: number }>>;
  /** What can be spent now, per dimension Rein limits. */
  available: Partial<Record<RateDimension, number>>;
  inFlight: number;
  waiting: number;
  pausedUntil?: number;
  granted: number;
  waits: number;
  waitedMs: number;
  rateLimited: number;
}

/**
 * The fleet's shared budget per provider account and model (the port; the
 * Redis implementation is in @rein/runtime). Every process draws from the
 * same budget: a call reserves before it is sent and settles after.
 */
export interface RateLimiter {
  reserve(scope: RateScope, request: ReserveRequest): Promise<ReserveOutcome>;
  /** Replaces the reservation's estimate with what the call used, and frees its in-flight slot. */
  settle(scope: RateScope, id: string, used: RateDemand, budget: RateBudget): Promise<void>;
  /** A call that gave up waiting leaves the line. */
  withdraw(scope: RateScope, id: string): Promise<void>;
  /** What a response's headers said: the budget is lowered to it, never raised above the configured limits. */
  observe(scope: RateScope, observed: ObservedLimits, budget: RateBudget): Promise<void>;
  /** A 429 asked to wait: every process's calls to the model wait that long. */
  pause(scope: RateScope, milliseconds: number): Promise<void>;
  snapshot(scope: RateScope, budget: RateBudget): Promise<RateSnapshot>;
}
