/** closed: calls pass; open: calls are refused at once; half_open: one probe call decides. */
export type BreakerState = "closed" | "open" | "half_open";

export interface BreakerChange {
  from: BreakerState;
  to: BreakerState;
  /** What moved it: the failure that opened it, `cooled_down`, `probe_succeeded`, `probe_failed`. */
  reason: string;
  /** Failures counted in the window when it changed. */
  failures: number;
}

export interface CircuitBreakerOptions {
  /** Failures inside `windowMs` that open the breaker. @defaultValue 5 */
  failureThreshold?: number;
  /** @defaultValue 60_000 */
  windowMs?: number;
  /** How long it stays open before one probe call is let through. @defaultValue 30_000 */
  openMs?: number;
  now?: () => number;
  onChange?: (change: BreakerChange) => void;
}

export type BreakerAdmission = { allowed: true; probe: boolean } | { allowed: false; retryInMs: number };

/**
 * Stops calling something that keeps failing: after `failureThreshold`
 * failures inside `windowMs` it opens and refuses calls for `openMs`, then
 * lets exactly one probe through (half-open); the probe's outcome closes or
 * re-opens it. Every change goes to `onChange`, so it can be traced.
 */
export class CircuitBreaker {
  private current: BreakerState = "closed";
  private failures: number[] = [];
  private openedAt = 0;
  private probing = false;
  private readonly threshold: number;
  private readonly windowMs: number;
  private readonly openMs: number;
  private readonly now: () => number;

  constructor(private readonly options: CircuitBreakerOptions = {}) {
    this.threshold = options.failureThreshold ?? 5;
    this.windowMs = options.windowMs ?? 60_000;
    this.openMs = options.openMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  /** The state as of now: an open breaker whose time is up reads as half-open. */
  state(): BreakerState {
    if (this.current === "open" && this.now() - this.openedAt >= this.openMs) this.move("half_open", "cooled_down");
    return this.current;
  }

  /** Failures inside the window. */
  recentFailures(): number {
    const since = this.now() - this.windowMs;
    this.failures = this.failures.filter((at) => at > since);
    return this.failures.length;
  }

  /** Whether a call may start now. In half-open state only one probe is in flight at a time. */
  admit(): BreakerAdmission {
    const state = this.state();
    if (state === "closed") return { allowed: true, probe: false };
    if (state === "half_open" && !this.probing) {
      this.probing = true;
      return { allowed: true, probe: true };
    }
    const retryInMs = state === "open" ? Math.max(0, this.openedAt + this.openMs - this.now()) : this.openMs;
    return { allowed: false, retryInMs };
  }

  recordSuccess(admission: BreakerAdmission): void {
    if (admission.allowed && admission.probe) {
      this.probing = false;
      this.failures = [];
      this.move("closed", "probe_succeeded");
    }
  }

  recordFailure(admission: BreakerAdmission, reason: string): void {
    this.failures.push(this.now());
    if (admission.allowed && admission.probe) {
      this.probing = false;
      this.open("probe_failed");
      return;
    }
    if (this.current === "closed" && this.recentFailures() >= this.threshold) this.open(reason);
  }

  /** A probe that ended without an outcome (cancelled, say) lets the next call probe. */
  release(admission: BreakerAdmission): void {
    if (admission.allowed && admission.probe) this.probing = false;
  }

  private open(reason: string): void {
    this.openedAt = this.now();
    this.move("open", reason);
  }

  private move(to: BreakerState, reason: string): void {
    if (to === this.current) return;
    const from = this.current;
    this.current = to;
    this.options.onChange?.({ from, to, reason, failures: this.recentFailures() });
  }
}
