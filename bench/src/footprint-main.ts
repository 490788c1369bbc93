/**
 * `pnpm --filter @rein/bench bench:footprint`: what a finished run leaves in
 * Redis, key by key (MEMORY USAGE), for the 200-turn run and the 20-step
 * run, so a cut of the footprint starts from what takes the bytes.
 */
import { redisUrlFromEnv } from "@rein/runtime";
import { withBenchEnv } from "./bench-env.ts";
import { redisFootprint } from "./redis-footprint.ts";

const redisUrl = redisUrlFromEnv();
for (const run of [{ echoTurns: 200 }, { steps: 20 }] as const) {
  const footprint = await withBenchEnv(redisUrl, "footprint", (env) => redisFootprint(env, run));
  process.stdout.write(`${JSON.stringify(run)}: ${footprint.runBytes} B in ${footprint.keys.length} keys (${footprint.status})\n`);
  for (const key of footprint.keys.toSorted((a, b) => b.bytes - a.bytes))
    process.stdout.write(`  ${String(key.bytes).padStart(9)} B  ${key.kind}\n`);
}
// BullMQ and ioredis leave handles that would keep the process up after cleanup.
process.exit(0);
