import type { RateDimension, RateSnapshot } from "@rein/models/rate-limit";
import { Counter, Gauge, type Registry } from "prom-client";

const DIMENSIONS: readonly [
  RateDimension,
  string,
  "requestsPerMinute" | "inputTokensPerMinute" | "outputTokensPerMinute" | "tokensPerMinute",
][] = [
  ["requests", "requests", "requestsPerMinute"],
  ["inputTokens", "input_tokens", "inputTokensPerMinute"],
  ["outputTokens", "output_tokens", "outputTokensPerMinute"],
  ["tokens", "tokens", "tokensPerMinute"],
];
const SCOPE = ["provider", "model"];

/**
 * The fleet's rate budget per provider and model, as the limiter keeps it in
 * Redis (so any process's scrape is the fleet's): the budget configured and
 * learned from the provider's headers (per minute; in flight), what is used
 * and left now, and since the budget's keys were made, grants, waits and 429s.
 */
export function registerRateLimitMetrics(registry: Registry, snapshots: readonly RateSnapshot[], now = Date.now()): void {
  const registers = [registry];
  const budget = new Gauge({
    name: "rein_rate_limit_budget",
    help: "The budget per minute (in_flight: calls at once), as configured and as learned from the provider's headers",
    labelNames: [...SCOPE, "dimension", "source"],
    registers,
  });
  const available = new Gauge({
    name: "rein_rate_limit_available",
    help: "What may be spent now, per dimension Rein limits",
    labelNames: [...SCOPE, "dimension"],
    registers,
  });
  const used = new Gauge({
    name: "rein_rate_limit_used",
    help: "The budget in use: spent and not yet refilled (in_flight: calls holding a slot)",
    labelNames: [...SCOPE, "dimension"],
    registers,
  });
  const gauge = (name: string, help: string) => new Gauge({ name, help, labelNames: SCOPE, registers });
  const counter = (name: string, help: string) => new Counter({ name, help, labelNames: SCOPE, registers });
  const inFlight = gauge("rein_rate_limit_in_flight", "Calls sent and not yet settled");
  const waiting = gauge("rein_rate_limit_waiting", "Calls waiting for capacity now");
  const paused = gauge("rein_rate_limit_paused_seconds", "How long every call to the model still waits after a 429's retry-after");
  const grants = counter("rein_rate_limit_grants_total", "Calls the budget let through");
  const waits = counter("rein_rate_limit_waits_total", "Calls that waited for capacity before they were let through");
  const waitSeconds = counter("rein_rate_limit_wait_seconds_total", "Time those calls waited");
  const refused = counter("rein_rate_limit_429_total", "429 responses from the provider (each paused the fleet's calls to the model)");

  for (const snapshot of snapshots) {
    const scope = { provider: snapshot.provider, model: snapshot.model };
    for (const [dimension, label, perMinute] of DIMENSIONS) {
      const configured = snapshot.configured[perMinute];
      const learned = snapshot.learned[dimension]?.limit;
      if (configured !== undefined) budget.set({ ...scope, dimension: label, source: "configured" }, configured);
      if (learned !== undefined) budget.set({ ...scope, dimension: label, source: "learned" }, learned);
      const left = snapshot.available[dimension];
      if (left === undefined) continue;
      available.set({ ...scope, dimension: label }, left);
      // The limit the limiter applies: the lower of configured and learned.
      const limit = Math.min(configured ?? Number.POSITIVE_INFINITY, learned ?? Number.POSITIVE_INFINITY);
      if (Number.isFinite(limit)) used.set({ ...scope, dimension: label }, Math.max(0, limit - left));
    }
    if (snapshot.configured.maxInFlight !== undefined)
      budget.set({ ...scope, dimension: "in_flight", source: "configured" }, snapshot.configured.maxInFlight);
    used.set({ ...scope, dimension: "in_flight" }, snapshot.inFlight);
    inFlight.set(scope, snapshot.inFlight);
    waiting.set(scope, snapshot.waiting);
    paused.set(scope, Math.max(0, ((snapshot.pausedUntil ?? 0) - now) / 1000));
    grants.inc(scope, snapshot.granted);
    waits.inc(scope, snapshot.waits);
    waitSeconds.inc(scope, snapshot.waitedMs / 1000);
    refused.inc(scope, snapshot.rateLimited);
  }
}
