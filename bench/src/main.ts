/**
 * `pnpm bench`: Rein's costs against floors measured in the same run and
 * the same process tree, interleaved round by round where they compete for
 * the machine, printed as a table and written to bench/results/latest.json.
 * `pnpm --filter @rein/bench readme` publishes that file into the README.
 * Each measure uses its own key prefix on REIN_REDIS_URL (default the local
 * Redis) and deletes everything under it when it is done.
 */
import { fileURLToPath } from "node:url";
import { redisUrlFromEnv } from "@rein/runtime";
import { withBenchEnv } from "./bench-env.ts";
import { cliStarts } from "./cli-start.ts";
import { controllerHeapPerRun } from "./controller-heap.ts";
import { dispatchCycles } from "./dispatch-cycle.ts";
import { fanOutMeasures } from "./fan-out.ts";
import { type Measure, measure, percentile } from "./measure.ts";
import { redisFootprint } from "./redis-footprint.ts";
import { renderTable, writeResults } from "./report.ts";
import { type RunsThroughput, runsPerSecond } from "./runs-throughput.ts";
import { throughput } from "./throughput.ts";
import { turnCosts } from "./turn-costs.ts";

const RESULTS = fileURLToPath(new URL("../results/latest.json", import.meta.url));
const redisUrl = redisUrlFromEnv();
const began = Date.now();
const progress = (what: string) => process.stderr.write(`bench: ${what} (${((Date.now() - began) / 1000).toFixed(0)} s)\n`);
const measures: Measure[] = [];

progress("CLI starts");
const starts = await withBenchEnv(redisUrl, "cli", async (env) => cliStarts(env, 7));
measures.push(
  measure("CPU per `rein --help` (user+sys)", starts.help, "ms", starts.bareNode, { of: "value", op: "<=", limit: 500 }),
  measure("CPU per `rein status <id>` (user+sys)", starts.status, "ms", starts.bareNode, { of: "value", op: "<=", limit: 500 }),
);

progress("dispatch cycle against a raw BullMQ round trip, worker in another process");
const cycles = await withBenchEnv(redisUrl, "dispatch", (env) => dispatchCycles(env, 10, 20, 20));
measures.push(
  measure("dispatch cycle p50", percentile(cycles.rein, 50), "ms", percentile(cycles.raw, 50), { of: "ratio", op: "<=", limit: 2.5 }),
  measure("dispatch cycle p99", percentile(cycles.rein, 99), "ms", percentile(cycles.raw, 99)),
  measure("two raw queue hops p50 (no Rein work)", percentile(cycles.relay, 50), "ms", percentile(cycles.raw, 50)),
);

progress("worker turn against @openai/agents and a bare loop");
const turns = await withBenchEnv(redisUrl, "turns", (env) => turnCosts(env, [20, 200], 3));
const at = (costs: Map<number, number>, count: number) => costs.get(count) ?? Number.NaN;
measures.push(
  measure("worker turn at 20 turns, against @openai/agents", at(turns.rein, 20), "µs", at(turns.agents, 20), {
    of: "ratio",
    op: "<=",
    limit: 0.3,
  }),
  measure("worker turn at 200 turns, against a bare loop", at(turns.rein, 200), "µs", at(turns.bare, 200), {
    of: "value",
    op: "<=",
    limit: 300,
  }),
  measure("  @openai/agents turn at 200 turns, against a bare loop", at(turns.agents, 200), "µs", at(turns.bare, 200)),
  measure("  worker Redis commands per turn at 200", turns.reinTraffic.get(200)?.commands ?? Number.NaN, "cmds", null),
  measure("  worker bytes to Redis per turn at 200", turns.reinTraffic.get(200)?.bytes ?? Number.NaN, "B", null),
);

progress("no-op runs end to end against raw BullMQ jobs, interleaved");
const rawJobs: number[] = [];
const runs: RunsThroughput[] = [];
for (let round = 0; round < 2; round += 1) {
  rawJobs.push(await withBenchEnv(redisUrl, `raw-${round}`, (env) => throughput(env, "raw", 1, 50, 4000)));
  runs.push(await withBenchEnv(redisUrl, `runs-${round}`, (env) => runsPerSecond(env, 300, 50)));
}
const rawJobsPerSecond = percentile(rawJobs, 50);
const runsMedian = percentile(
  runs.map((round) => round.runsPerSecond),
  50,
);
measures.push(
  measure("no-op runs/s, 4 role processes × 50, against raw jobs/s", runsMedian, "/s", rawJobsPerSecond, {
    of: "ratio",
    op: ">=",
    limit: 0.25,
  }),
);
// Where a run's time goes: CPU each role's process spends on it (the median round's).
const cpu = (runs.find((round) => round.runsPerSecond === runsMedian) ?? runs[0])?.cpuPerRun;
for (const [role, millis] of Object.entries(cpu ?? {}))
  measures.push(measure(`  CPU per no-op run in the ${role} process`, millis, "ms", null));
progress("no-op steps, one step process");
const steps = await withBenchEnv(redisUrl, "steps", (env) => throughput(env, "rein", 1, 50, 1000));
measures.push(measure("  no-op steps/s, 1 step process × 50, against raw jobs/s", steps, "/s", rawJobsPerSecond));

progress("controller heap");
const heap = await withBenchEnv(redisUrl, "heap", (env) => controllerHeapPerRun(env, 300, 20));
measures.push(measure("controller heap per in-flight run", heap, "B", null, { of: "value", op: "<=", limit: 5120 }));

progress("Redis footprint of a 20-step run and of a 200-turn run");
const twentySteps = await withBenchEnv(redisUrl, "footprint-steps", (env) => redisFootprint(env, { steps: 20 }));
const longStep = await withBenchEnv(redisUrl, "footprint-turns", (env) => redisFootprint(env, { echoTurns: 200 }));
for (const footprint of [twentySteps, longStep])
  if (!footprint.status.startsWith("done")) throw new Error(`a footprint run ended ${footprint.status}`);
measures.push(
  measure(
    `Redis bytes per finished 20-step run (${twentySteps.jobs} queue jobs), against as many raw jobs`,
    twentySteps.runBytes,
    "B",
    twentySteps.rawJobBytes,
  ),
  measure(
    `Redis bytes per finished 200-turn run (${longStep.jobs} queue jobs), against as many raw jobs`,
    longStep.runBytes,
    "B",
    longStep.rawJobBytes,
    { of: "value", op: "<=", limit: 600 * 1024 },
  ),
);

progress("fan-out of 5 children x 2 s model calls, 5 step slots then 1");
measures.push(...(await fanOutMeasures(redisUrl)));

await writeResults(RESULTS, measures);
process.stdout.write(`${renderTable(measures)}\n\nwrote ${RESULTS} in ${((Date.now() - began) / 1000).toFixed(0)} s\n`);
// BullMQ and ioredis leave handles that would keep the process up after cleanup.
process.exit(0);
