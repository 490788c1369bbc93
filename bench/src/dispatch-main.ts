/**
 * `pnpm --filter @rein/bench bench:dispatch`: only the dispatch-cycle rows
 * (p50 and p99 against a raw BullMQ round trip) and the no-op runs/s row
 * (against raw jobs/s, interleaved round by round) of `pnpm bench`, printed
 * as the same table, for profiling the controller and the step worker
 * without the whole bench. `REIN_BENCH_ONLY=dispatch` or `=runs` runs one
 * of the two; `NODE_OPTIONS=--cpu-prof` profiles every process of it.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { redisUrlFromEnv } from "@rein/runtime";
import { recordCommands } from "./command-timeline.ts";
import { withBenchEnv } from "./bench-env.ts";
import { dispatchCycles } from "./dispatch-cycle.ts";
import { type Measure, measure, percentile } from "./measure.ts";
import { renderTable } from "./report.ts";
import { type RunsThroughput, runsPerSecond } from "./runs-throughput.ts";
import { throughput } from "./throughput.ts";
import { dispatchTimeline } from "./timeline-report.ts";

const redisUrl = redisUrlFromEnv();
const only = process.env.REIN_BENCH_ONLY;
const measures: Measure[] = [];

if (process.env.REIN_BENCH_TIMELINE !== undefined) {
  await printDispatchTimeline();
  process.exit(0);
}

if (only !== "runs") {
  const cycles = await withBenchEnv(redisUrl, "dispatch", (env) => dispatchCycles(env, 10, 20, 20));
  measures.push(
    measure("dispatch cycle p50", percentile(cycles.rein, 50), "ms", percentile(cycles.raw, 50), { of: "ratio", op: "<=", limit: 2.5 }),
    measure("dispatch cycle p99", percentile(cycles.rein, 99), "ms", percentile(cycles.raw, 99)),
    measure("two raw queue hops p50 (no Rein work)", percentile(cycles.relay, 50), "ms", percentile(cycles.raw, 50)),
  );
}
if (only !== "dispatch") {
  const rawJobs: number[] = [];
  const runs: RunsThroughput[] = [];
  for (let round = 0; round < 2; round += 1) {
    rawJobs.push(await withBenchEnv(redisUrl, `raw-${round}`, (env) => throughput(env, "raw", 1, 50, 4000)));
    runs.push(await withBenchEnv(redisUrl, `runs-${round}`, (env) => runsPerSecond(env, 300, 50)));
  }
  const runsMedian = percentile(
    runs.map((round) => round.runsPerSecond),
    50,
  );
  measures.push(
    measure("no-op runs/s, 4 role processes × 50, against raw jobs/s", runsMedian, "/s", percentile(rawJobs, 50), {
      of: "ratio",
      op: ">=",
      limit: 0.25,
    }),
  );
  const cpu = (runs.find((round) => round.runsPerSecond === runsMedian) ?? runs[0])?.cpuPerRun;
  for (const [role, millis] of Object.entries(cpu ?? {}))
    measures.push(measure(`  CPU per no-op run in the ${role} process`, millis, "ms", null));
}
process.stdout.write(`${renderTable(measures)}\n`);
// BullMQ and ioredis leave handles that would keep the process up after cleanup.
process.exit(0);

/**
 * `REIN_BENCH_TIMELINE=1`: the dispatch cycles again, with every Redis command
 * of every process recorded (a few µs each, so the cycle's own p50 is not
 * the bench's), and where the time of a cycle goes: each round trip on its
 * critical path, and the work between two of them.
 */
async function printDispatchTimeline(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "rein-bench-timeline-"));
  process.env.REIN_BENCH_TIMELINE = dir;
  const recording = recordCommands(dir);
  const cycles = await withBenchEnv(redisUrl, "timeline", (env) => dispatchCycles(env, 10, 20, 20));
  recording.write();
  const { rows, cycles: seen } = await dispatchTimeline(dir);
  const sum = (roundTrip: boolean) => rows.filter((row) => row.roundTrip === roundTrip).reduce((total, row) => total + row.micros, 0);
  const lines = rows.map((row) => `${row.micros.toFixed(0).padStart(7)} µs  ${row.segment}`);
  process.stdout.write(
    [
      `dispatch cycle, medians over ${seen} cycles (commands recorded in ${dir}):`,
      ...lines,
      `${sum(true).toFixed(0).padStart(7)} µs  in ${rows.filter((row) => row.roundTrip).length} round trips`,
      `${sum(false).toFixed(0).padStart(7)} µs  between them`,
      `cycle p50 ${percentile(cycles.rein, 50).toFixed(2)} ms; raw BullMQ round trip p50 ${percentile(cycles.raw, 50).toFixed(2)} ms (its worker in another process, 4 Redis round trips)`,
    ].join("\n") + "\n",
  );
}
