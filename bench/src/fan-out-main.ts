/**
 * `pnpm --filter @rein/bench bench:fanout`: only the fan-out rows of `pnpm
 * bench` (5 children whose model calls each take 2 s, with 5 step slots and
 * with 1), printed as the same table, each run's trace as offsets from its
 * first event with REIN_BENCH_TIMELINE=1.
 */
import { redisUrlFromEnv } from "@rein/runtime";
import { fanOutMeasures } from "./fan-out.ts";
import { renderTable } from "./report.ts";

const timeline = process.env.REIN_BENCH_TIMELINE !== undefined;
const measures = await fanOutMeasures(redisUrlFromEnv(), (lines) => {
  if (timeline) process.stdout.write(`${lines.join("\n")}\n\n`);
});
process.stdout.write(`${renderTable(measures)}\n`);
// BullMQ and ioredis leave handles that would keep the process up after cleanup.
process.exit(0);
