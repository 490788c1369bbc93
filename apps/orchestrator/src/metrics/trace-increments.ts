import { ReinError } from "@rein/contracts";
import { z } from "@rein/tools";
import type { TypedTraceEvent } from "@rein/trace";

/** Upper bounds, in seconds, of the latency histograms' buckets. */
export const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300] as const;

/** A counter's name and labels, as the field of the Redis hash that holds its value. */
export type SeriesKey = string;
export const seriesKey = (metric: string, labels: Readonly<Record<string, string>> = {}): SeriesKey => JSON.stringify([metric, labels]);

/** A counter's name and labels, as `seriesKey` wrote them. */
export interface Series {
  metric: string;
  labels: Record<string, string>;
}

const SeriesJson = z.tuple([z.string(), z.record(z.string(), z.string())]);

/**
 * The name and labels a field of the totals hash holds; a field that is not
 * the `[metric, labels]` JSON `seriesKey` writes is a `contract_invalid` error.
 */
export function parseSeriesKey(key: string): Series {
  let json: unknown;
  try {
    json = JSON.parse(key);
  } catch {
    json = undefined;
  }
  const parsed = SeriesJson.safeParse(json);
  if (!parsed.success)
    throw new ReinError(
      "contract_invalid",
      `metrics series ${JSON.stringify(key)} is not a series key; expected the JSON [metric, {label: value}] that seriesKey writes`,
    );
  const [metric, labels] = parsed.data;
  return { metric, labels };
}

const RUN_ENDS: Readonly<Record<string, string>> = {
  "run.done": "done",
  "run.failed": "failed",
  "run.cancelled": "cancelled",
  "run.escalated": "escalated",
};

/**
 * What one trace event adds to the deployment's counters. The trace is the
 * record every process already writes, so counting from it covers the
 * planner, worker and evaluator processes without any of them knowing about
 * metrics.
 */
export function incrementsOf(event: TypedTraceEvent): [SeriesKey, number][] {
  const label = (value: unknown) => (typeof value === "string" && value !== "" ? value : "unknown");
  switch (event.kind) {
    case "run.submitted":
      return [[seriesKey("runs_submitted"), 1]];
    case "step.dispatched":
      return [[seriesKey("steps_dispatched"), 1]];
    case "tool.result": {
      const tool = label(event.payload.tool);
      return [
        [seriesKey("tool_calls", { tool, outcome: label(event.payload.status) }), 1],
        ...latency("tool_call_seconds", { tool }, event.durationMs ?? event.payload.durationMs),
      ];
    }
    case "model.responded": {
      const labels = { role: label(event.payload.role), model: label(event.payload.model) };
      const usage = event.usage;
      return [
        [seriesKey("model_calls", { ...labels, outcome: "ok" }), 1],
        [seriesKey("model_tokens", { ...labels, type: "input" }), usage?.inputTokens ?? 0],
        [seriesKey("model_tokens", { ...labels, type: "output" }), usage?.outputTokens ?? 0],
        [seriesKey("model_tokens", { ...labels, type: "cache_read" }), usage?.cacheReadTokens ?? 0],
        [seriesKey("model_tokens", { ...labels, type: "cache_write" }), usage?.cacheWriteTokens ?? 0],
        [seriesKey("model_cost_usd", labels), usage?.costUsd ?? 0],
        ...latency("model_call_seconds", { role: labels.role }, event.durationMs),
      ];
    }
    case "model.failed": {
      const role = label(event.payload.role);
      return [
        [seriesKey("model_calls", { role, model: label(event.payload.model), outcome: event.payload.aborted ? "aborted" : "failed" }), 1],
        ...latency("model_call_seconds", { role }, event.durationMs),
      ];
    }
    default: {
      const ended = RUN_ENDS[event.kind];
      return ended ? [[seriesKey("runs_ended", { status: ended }), 1]] : [];
    }
  }
}

/** One observation of a histogram: its bucket (not cumulative; the exposition adds them up), its sum and count. */
function latency(metric: string, labels: Record<string, string>, durationMs: unknown): [SeriesKey, number][] {
  if (typeof durationMs !== "number" || !Number.isFinite(durationMs)) return [];
  const seconds = durationMs / 1000;
  const le = LATENCY_BUCKETS.find((bound) => seconds <= bound);
  return [
    [seriesKey(`${metric}_bucket`, { ...labels, le: le === undefined ? "+Inf" : String(le) }), 1],
    [seriesKey(`${metric}_sum`, labels), seconds],
    [seriesKey(`${metric}_count`, labels), 1],
  ];
}
