/**
 * `pnpm --filter @rein/bench bench:dispatch`: only the dispatch-cycle rows
 * (p50 and p99 against a raw BullMQ round trip) and the no-op runs/s row
 * (against raw jobs/s, interleaved round by round) of `pnpm bench`, printed
 * as the same table, for profiling the controller and the step worker
 * without the whole bench. `REIN_BENCH_ONLY=dispatch` or `=runs` runs one
 * of the two; `NODE_OPTIONS=--cpu-prof` profiles every process of it.
 */
import { redisUrlFromEnv } from "@rein/core";
import { withBenchEnv } from "./bench-env.ts";
import { dispatchCycles } from "./dispatch-cycle.ts";
import { type Measure, measure, percentile } from "./measure.ts";
import { renderTable } from "./report.ts";
import { type RunsThroughput, runsPerSecond } from "./runs-throughput.ts";
import { throughput } from "./throughput.ts";

const redisUrl = redisUrlFromEnv();
const only = process.env.REIN_BENCH_ONLY;
const measures: Measure[] = [];

if (only !== "runs") {
  const cycles = await withBenchEnv(redisUrl, "dispatch", (env) => dispatchCycles(env, 10, 20, 20));
  measures.push(
    measure("dispatch cycle p50", percentile(cycles.rein, 50), "ms", percentile(cycles.raw, 50), { of: "ratio", op: "<=", limit: 2.5 }),
    measure("dispatch cycle p99", percentile(cycles.rein, 99), "ms", percentile(cycles.raw, 99)),
  );
}
if (only !== "dispatch") {
  const rawJobs: number[] = [];
  const runs: RunsThroughput[] = [];
  for (let round = 0; round < 2; round += 1) {
    rawJobs.push(await withBenchEnv(redisUrl, `raw-${round}`, (env) => throughput(env, "raw", 1, 50, 4000)));
    runs.push(await withBenchEnv(redisUrl, `runs-${round}`, (env) => runsPerSecond(env, 300, 50)));
  }
  const runsMedian = percentile(runs.map((round) => round.runsPerSecond), 50);
  measures.push(measure("no-op runs/s, 4 role processes × 50, against raw jobs/s", runsMedian, "/s", percentile(rawJobs, 50), { of: "ratio", op: ">=", limit: 0.25 }));
  const cpu = (runs.find((round) => round.runsPerSecond === runsMedian) ?? runs[0])?.cpuPerRun;
  for (const [role, millis] of Object.entries(cpu ?? {})) measures.push(measure(`  CPU per no-op run in the ${role} process`, millis, "ms", null));
}
process.stdout.write(`${renderTable(measures)}\n`);
// BullMQ and ioredis leave handles that would keep the process up after cleanup.
process.exit(0);
