/**
 * `pnpm bench`: Rein's costs against a raw BullMQ floor measured in the
 * same run, printed as a table and written to bench/results/latest.json.
 * Each measure uses its own key prefix on REIN_REDIS_URL (default the local
 * Redis) and deletes everything under it when it is done.
 */
import { fileURLToPath } from "node:url";
import { withBenchEnv } from "./bench-env.ts";
import { cliStarts } from "./cli-start.ts";
import { controllerHeapPerRun } from "./controller-heap.ts";
import { dispatchCycles } from "./dispatch-cycle.ts";
import { innerTurns } from "./inner-turn.ts";
import { type Measure, measure, percentile } from "./measure.ts";
import { rawRoundTrips, redisRoundTripMicros } from "./raw-floor.ts";
import { redisFootprint } from "./redis-footprint.ts";
import { renderTable, writeResults } from "./report.ts";
import { throughput } from "./throughput.ts";

const RESULTS = fileURLToPath(new URL("../results/latest.json", import.meta.url));
const redisUrl = process.env.REIN_REDIS_URL ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const began = Date.now();
const progress = (what: string) => process.stderr.write(`bench: ${what} (${((Date.now() - began) / 1000).toFixed(0)} s)\n`);
const measures: Measure[] = [];

progress("CLI starts");
const starts = await withBenchEnv(redisUrl, "cli", async (env) => cliStarts(env, 7));
measures.push(
  measure("CPU per `rein --help` (user+sys)", starts.help, "ms", starts.bareNode, { of: "value", op: "<=", limit: 500 }),
  measure("CPU per `rein status <id>` (user+sys)", starts.status, "ms", starts.bareNode, { of: "value", op: "<=", limit: 500 }),
);

progress("raw BullMQ round trip, Redis round trip");
const { raw, redisRtt } = await withBenchEnv(redisUrl, "floor", async (env) => {
  const runtime = env.runtime();
  return { raw: await rawRoundTrips(runtime, 500, 50), redisRtt: await redisRoundTripMicros(runtime, 1000) };
});

progress("dispatch cycle");
const cycles = await withBenchEnv(redisUrl, "dispatch", (env) => dispatchCycles(env, 200, 30));
measures.push(
  measure("dispatch cycle p50", percentile(cycles, 50), "ms", percentile(raw, 50), { of: "ratio", op: "<=", limit: 2.5 }),
  measure("dispatch cycle p99", percentile(cycles, 99), "ms", percentile(raw, 99)),
);

progress("worker inner turn");
const turns = await withBenchEnv(redisUrl, "turns", (env) => innerTurns(env, [20, 200], 3));
for (const [count, micros] of turns.microsPerTurn) {
  measures.push(measure(`inner turn at ${count} turns`, micros, "µs", redisRtt, { of: "value", op: "<=", limit: 300 }));
}
for (const [count, traffic] of turns.trafficPerTurn) {
  measures.push(measure(`  worker Redis commands/turn at ${count}`, traffic.commands, "cmds", null));
  measures.push(measure(`  worker bytes to Redis/turn at ${count}`, traffic.bytes, "B", null));
}

for (const processes of [1, 2]) {
  progress(`throughput ${processes} × 50`);
  const floor = await withBenchEnv(redisUrl, `raw-${processes}`, (env) => throughput(env, "raw", processes, 50, 4000));
  const steps = await withBenchEnv(redisUrl, `steps-${processes}`, (env) => throughput(env, "rein", processes, 50, 1000));
  measures.push(measure(`no-op steps/s, ${processes} process × 50`, steps, "jobs/s", floor, { of: "ratio", op: ">=", limit: 0.8 }));
}

progress("controller heap");
const heap = await withBenchEnv(redisUrl, "heap", (env) => controllerHeapPerRun(env, 300, 20));
measures.push(measure("controller heap per in-flight run", heap, "B", null, { of: "value", op: "<=", limit: 5120 }));

progress("Redis footprint of a 20-step run");
const footprint = await withBenchEnv(redisUrl, "footprint", (env) => redisFootprint(env, 20));
if (!footprint.status.startsWith("done")) throw new Error(`the 20-step run ended ${footprint.status}`);
measures.push(measure(`Redis bytes per finished 20-step run (${footprint.jobs} queue jobs)`, footprint.runBytes, "B", footprint.rawJobBytes));

await writeResults(RESULTS, measures);
process.stdout.write(
  `${renderTable(measures)}\n\nfloors: a bare node start (CLI), raw BullMQ add→completed (dispatch), one Redis PING (inner turn), raw BullMQ no-op jobs/s (throughput), as many raw completed BullMQ jobs (Redis bytes)\n`,
);
process.stdout.write(`wrote ${RESULTS} in ${((Date.now() - began) / 1000).toFixed(0)} s\n`);
// BullMQ and ioredis leave handles that would keep the process up after cleanup.
process.exit(0);
