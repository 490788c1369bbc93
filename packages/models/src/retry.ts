import { classifyFailure, type ProviderFailure } from "./errors-classify.ts";
import { modelError } from "./model-error.ts";
import type { ModelStreamEvent } from "./model-provider.ts";
import { abortableSleep } from "./abortable-sleep.ts";

/** How an adapter waits between attempts. Tests inject `sleep`, `random` and `now`. */
export interface RetryPolicy {
  /** Retries after the first attempt. @defaultValue 4 (ProviderConfig.maxRetries) */
  maxRetries: number;
  /** @defaultValue 500 */
  baseDelayMs?: number;
  /**
   * The longest backoff wait, and the longest `retry-after` honoured: a
   * server asking for more is not retried early (it would only be refused
   * again) but fails at once with the server's delay in the error.
   * @defaultValue 60_000
   */
  maxDelayMs?: number;
  sleep?: (milliseconds: number, signal?: AbortSignal) => Promise<void>;
  /** A number in [0, 1). @defaultValue Math.random */
  random?: () => number;
  /** @defaultValue Date.now */
  now?: () => number;
}

export interface RetryContext {
  provider: string;
  model: string;
  /** Where the adapter sends requests, named in connection errors. */
  baseURL?: string;
  secrets: readonly string[];
  signal?: AbortSignal;
  onEvent?: (event: ModelStreamEvent) => void;
  /**
   * A rate gate holds each attempt until the fleet's budget has room: a 429
   * is then retried without counting against `maxRetries` and without a
   * sleep here, the gate's wait (bounded by the call's deadline) being the wait.
   */
  waitsForRateLimits?: boolean;
  /** Maps a thrown SDK error to a neutral failure; returns undefined for errors that are not the provider's (they propagate as they are). */
  toFailure: (error: unknown) => ProviderFailure | undefined;
}

/**
 * Exponential backoff with full jitter (a uniformly random wait up to the
 * exponential bound), which spreads out clients that failed together; a
 * `retry-after` from the provider replaces the computed wait.
 */
export function backoffDelay(retry: number, policy: RetryPolicy): number {
  const base = policy.baseDelayMs ?? 500;
  const cap = policy.maxDelayMs ?? 60_000;
  const bound = Math.min(cap, base * 2 ** retry);
  return Math.floor((policy.random ?? Math.random)() * bound);
}

/**
 * Runs `attempt` until it succeeds, fails in a way retrying cannot help, or
 * the retries run out; then throws a `model_error` ReinError. This is the
 * call's one retry budget: the error is never retryable for the queue. An
 * abort ends it at once with the signal's reason.
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  policy: RetryPolicy,
  context: RetryContext,
): Promise<{ value: T; retries: number }> {
  const sleep = policy.sleep ?? abortableSleep;
  const now = policy.now ?? Date.now;
  let counted = 0;
  for (let retries = 0; ; retries += 1) {
    try {
      return { value: await attempt(), retries };
    } catch (error) {
      context.signal?.throwIfAborted();
      const mapped = context.toFailure(error);
      if (!mapped) throw error;
      const failure: ProviderFailure = context.baseURL ? { ...mapped, baseURL: context.baseURL } : mapped;
      const classification = classifyFailure(failure, now);
      if (context.waitsForRateLimits && classification.reason === "rate_limited") continue;
      if (!classification.retryable || counted >= policy.maxRetries) {
        throw modelError(failure, classification, { ...context, retries, cause: error });
      }
      const cap = policy.maxDelayMs ?? 60_000;
      if (classification.retryAfterMs !== undefined && classification.retryAfterMs > cap) {
        const stoppedBecause = `the server asked to wait ${seconds(classification.retryAfterMs)} before retrying, longer than the ${seconds(cap)} this call may wait`;
        throw modelError(failure, classification, { ...context, retries, cause: error, stoppedBecause });
      }
      const delayMs = classification.retryAfterMs ?? backoffDelay(counted, policy);
      counted += 1;
      context.onEvent?.({ type: "retry", attempt: retries + 1, delayMs, reason: classification.reason });
      await sleep(delayMs, context.signal);
    }
  }
}

const seconds = (milliseconds: number): string => `${Math.round(milliseconds / 100) / 10} s`;
