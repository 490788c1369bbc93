import { randomUUID } from "node:crypto";
import { ReinError, type Usage } from "@rein/contracts";
import { classifyFailure, type ProviderFailure, retryAfterOf } from "../errors-classify.ts";
import type { AttemptGate, ModelWait } from "../model-provider.ts";
import { observedLimitsOf } from "./rate-limit-headers.ts";
import type { RateDemand, RateLimiter, RateScope, RateWaitReason } from "./rate-limiter.ts";
import type { RateBudget } from "./rate-limits-config.ts";
import { abortableSleep } from "../abortable-sleep.ts";

export interface RateGateSettings {
  limiter: RateLimiter;
  scope: RateScope;
  budget: RateBudget;
  leaseMs: number;
  /** The longest wait when the caller sets no deadline. */
  maxWaitMs: number;
  now?: () => number;
  sleep?: (milliseconds: number, signal?: AbortSignal) => Promise<void>;
  /** A number in [0, 1), to spread out waiters that would wake together. @defaultValue Math.random */
  random?: () => number;
}

export interface GatedCall {
  demand: RateDemand;
  runId?: string;
  deadline?: number;
  signal?: AbortSignal;
  onWaited?: (wait: ModelWait) => void | Promise<void>;
}

// A waiter asks again at least this often: a settle elsewhere may free room before the computed wait ends.
const longestNap = 2_000;
// A 429 with no retry-after still pauses the fleet, for this long and then twice as long each time.
const firstPauseMs = 1_000;

/**
 * One call's passage through the fleet's rate budget: each attempt reserves
 * (waiting while the budget has no room, never past the deadline), each
 * answer's headers adjust the budget, a 429 pauses every process's calls to
 * the model, and the last reservation settles with the real usage.
 */
export class RateGate implements AttemptGate {
  private reservation: string | undefined;
  private pauses = 0;
  private readonly now: () => number;

  constructor(
    private readonly settings: RateGateSettings,
    private readonly call: GatedCall,
  ) {
    this.now = settings.now ?? Date.now;
  }

  async acquire(): Promise<void> {
    const { limiter, scope, budget, leaseMs } = this.settings;
    await this.release(this.call.demand);
    const started = this.now();
    const deadline = Math.min(this.call.deadline ?? Number.POSITIVE_INFINITY, started + this.settings.maxWaitMs);
    const id = randomUUID();
    let reason: RateWaitReason | undefined;
    for (;;) {
      const waitedMs = this.now() - started;
      const outcome = await limiter.reserve(scope, {
        id,
        demand: this.call.demand,
        budget,
        leaseMs,
        waitedMs: reason ? waitedMs : 0,
        ...(this.call.runId ? { runId: this.call.runId } : {}),
      });
      if (outcome.granted) {
        this.reservation = id;
        if (reason) await this.call.onWaited?.({ ...scope, waitedMs, reason, granted: true });
        return;
      }
      reason = outcome.reason;
      if (this.now() + outcome.waitMs > deadline) {
        await limiter.withdraw(scope, id);
        await this.call.onWaited?.({ ...scope, waitedMs, reason, granted: false });
        throw waitTooLong(scope, reason, outcome.waitMs, deadline - this.now());
      }
      const nap = Math.min(outcome.waitMs, longestNap) + Math.floor((this.settings.random ?? Math.random)() * 50);
      try {
        await (this.settings.sleep ?? abortableSleep)(nap, this.call.signal);
      } catch (error) {
        await limiter.withdraw(scope, id);
        throw error;
      }
    }
  }

  async succeeded(headers: Headers | undefined): Promise<void> {
    await this.observe(headers);
  }

  async failed(failure: ProviderFailure | undefined): Promise<void> {
    const rateLimited = failure !== undefined && classifyFailure(failure, this.now).reason === "rate_limited";
    // A refused request used no tokens; any other failure may have, so its estimate stands.
    await this.release(rateLimited ? { inputTokens: 0, outputTokens: 0 } : this.call.demand);
    await this.observe(failure?.headers);
    if (!rateLimited) return;
    const asked = failure.headers ? retryAfterOf(failure.headers, this.now) : undefined;
    const pause = asked ?? firstPauseMs * 2 ** Math.min(this.pauses, 5);
    this.pauses += 1;
    await this.settings.limiter.pause(this.settings.scope, pause);
  }

  /** The call is over: its reservation settles with what it used (its estimate when it has no usage to show). */
  async finish(usage: Usage | undefined): Promise<void> {
    await this.release(
      usage ? { inputTokens: usage.inputTokens + usage.cacheWriteTokens, outputTokens: usage.outputTokens } : this.call.demand,
    );
  }

  private async release(used: RateDemand): Promise<void> {
    const id = this.reservation;
    if (id === undefined) return;
    this.reservation = undefined;
    await this.settings.limiter.settle(this.settings.scope, id, used, this.settings.budget);
  }

  private async observe(headers: Headers | undefined): Promise<void> {
    const observed = headers ? observedLimitsOf(headers, this.now()) : undefined;
    if (observed) await this.settings.limiter.observe(this.settings.scope, observed, this.settings.budget);
  }
}

function waitTooLong(scope: RateScope, reason: RateWaitReason, waitMs: number, leftMs: number): ReinError {
  return new ReinError(
    "budget_exhausted",
    `model ${scope.model} of provider "${scope.provider}" has no rate budget (${reason}) for another ${Math.ceil(waitMs / 1000)} s, ` +
      `longer than the ${Math.max(0, Math.floor(leftMs / 1000))} s left before the call's deadline; expected capacity before the deadline`,
    { details: { provider: scope.provider, model: scope.model, reason, waitMs, leftMs: Math.max(0, leftMs) } },
  );
}
