import { errorMessage } from "@rein/contracts";
import type { Logger } from "@rein/guard";
import type { ApprovalStore, ReinRuntime } from "@rein/runtime";
import { Counter, Gauge, type Metric, type MetricValue, Registry } from "prom-client";
import type { RunLister } from "../api/run-summaries.ts";
import { fleetRateBudgets } from "../rate-limit/fleet-rate-budgets.ts";
import { registerRateLimitMetrics } from "./rate-limit-metrics.ts";
import type { TraceFold } from "./trace-fold.ts";
import { LATENCY_BUCKETS, parseSeriesKey, type Series, type SeriesKey } from "./trace-increments.ts";
import { everyQueue, jobCountsOf } from "../redis/every-queue.ts";

export interface MetricsSources {
  runtime: ReinRuntime;
  approvals: ApprovalStore;
  runs: RunLister;
  fold: TraceFold;
}

const COUNTERS: Readonly<Record<string, [string, string[]]>> = {
  runs_submitted: ["Runs submitted", []],
  runs_ended: ["Runs that ended or escalated, by status", ["status"]],
  steps_dispatched: ["Step attempts dispatched", []],
  tool_calls: ["Tool calls by tool and outcome (ok, error, denied, timeout, …)", ["tool", "outcome"]],
  model_calls: ["Model calls by role, model and outcome", ["role", "model", "outcome"]],
  model_tokens: ["Model tokens by role, model and type (input, output, cache_read, cache_write)", ["role", "model", "type"]],
  model_cost_usd: ["Model cost in USD by role and model", ["role", "model"]],
};
const HISTOGRAMS: Readonly<Record<string, [string, string[]]>> = {
  tool_call_seconds: ["Tool call latency by tool", ["tool"]],
  model_call_seconds: ["Model call latency by role", ["role"]],
};

/**
 * `GET /metrics`: the whole deployment's numbers in Prometheus text, from
 * what every process writes to Redis — counters folded from the run traces,
 * runs per status, queue depths, pending approvals and the fleet's rate
 * budgets read now. Each scrape builds a fresh registry, so nothing of one
 * scrape leaks into the next.
 */
export async function renderMetrics(sources: MetricsSources): Promise<{ contentType: string; body: string }> {
  const [totals, counts, queues, pending, rateBudgets] = await Promise.all([
    sources.fold.totalsNow(),
    sources.runs.statusCounts(),
    everyQueue(sources.runtime).then((all) =>
      Promise.all(
        all.map(
          async (queue) =>
            [queue.name, await jobCountsOf(queue, "waiting", "active", "delayed", "failed", "prioritized", "waiting-children")] as const,
        ),
      ),
    ),
    sources.approvals.list({ status: "pending" }),
    fleetRateBudgets(sources.runtime),
  ]);
  const registry = new Registry();
  const series = readSeries(totals, sources.runtime.logger);
  for (const [name, [help, labelNames]] of Object.entries(COUNTERS)) {
    const counter = new Counter({ name: `rein_${name}_total`, help, labelNames, registers: [registry] });
    for (const { metric, labels, value } of series) if (metric === name) counter.inc(labels, value);
  }
  for (const [name, [help, labelNames]] of Object.entries(HISTOGRAMS))
    registry.registerMetric(storedHistogram(`rein_${name}`, help, labelNames, name, series));

  const runs = new Gauge({
    name: "rein_runs",
    help: `Runs by status, over the newest ${counts.counted} runs (exact: ${counts.exact})`,
    labelNames: ["status"],
    registers: [registry],
  });
  for (const [status, value] of Object.entries(counts.byStatus)) runs.set({ status }, value);
  const depth = new Gauge({
    name: "rein_queue_jobs",
    help: "Jobs per queue and state",
    labelNames: ["queue", "state"],
    registers: [registry],
  });
  for (const [queue, jobCounts] of queues) for (const [state, value] of Object.entries(jobCounts)) depth.set({ queue, state }, value);
  new Gauge({ name: "rein_approvals_pending", help: "Approvals waiting for a person", registers: [registry] }).set(pending.length);
  registerRateLimitMetrics(registry, rateBudgets);
  return { contentType: registry.contentType, body: await registry.metrics() };
}

/** The totals with their names and labels; a field that is not a series (another version wrote it) is left out of the scrape, with a warning. */
function readSeries(totals: ReadonlyMap<SeriesKey, number>, logger: Logger): (Series & { value: number })[] {
  const series: (Series & { value: number })[] = [];
  for (const [key, value] of totals) {
    try {
      series.push({ ...parseSeriesKey(key), value });
    } catch (error) {
      logger.warn({ error: errorMessage(error) }, "metrics: a totals field left out");
    }
  }
  return series;
}

/**
 * A histogram whose buckets were counted elsewhere (in Redis, by every
 * process's trace): prom-client's Histogram only observes in-process, so
 * this hands the registry the stored buckets, made cumulative, through the
 * `get()` every prom-client metric answers.
 */
function storedHistogram(
  name: string,
  help: string,
  labelNames: string[],
  metricName: string,
  totals: readonly (Series & { value: number })[],
): Metric {
  const groups = new Map<string, { labels: Record<string, string>; buckets: Map<string, number>; sum: number; count: number }>();
  const groupOf = (labels: Record<string, string>) => {
    const own = Object.fromEntries(labelNames.map((label) => [label, labels[label] ?? "unknown"]));
    const key = JSON.stringify(own);
    const group = groups.get(key) ?? { labels: own, buckets: new Map(), sum: 0, count: 0 };
    groups.set(key, group);
    return group;
  };
  for (const { metric, labels, value } of totals) {
    if (metric === `${metricName}_bucket`) groupOf(labels).buckets.set(labels.le ?? "+Inf", value);
    else if (metric === `${metricName}_sum`) groupOf(labels).sum = value;
    else if (metric === `${metricName}_count`) groupOf(labels).count = value;
  }
  const values: (MetricValue<string> & { metricName: string })[] = [];
  for (const group of groups.values()) {
    let cumulative = 0;
    for (const le of [...LATENCY_BUCKETS.map(String), "+Inf"]) {
      cumulative += group.buckets.get(le) ?? 0;
      values.push({ metricName: `${name}_bucket`, labels: { ...group.labels, le }, value: cumulative });
    }
    values.push({ metricName: `${name}_sum`, labels: group.labels, value: group.sum });
    values.push({ metricName: `${name}_count`, labels: group.labels, value: group.count });
  }
  const snapshot = { name, help, type: "histogram", aggregator: "sum", values };
  return { name, help, get: async () => snapshot } as unknown as Metric;
}
