/**
 * `pnpm --filter @rein/bench bench:turns`: only the worker-turn rows of the
 * bench (20 and 200 turns: Rein's step worker on real Redis, @openai/agents
 * and a bare loop on the same scripted model and tool), for profiling the
 * step loop without the whole bench (`node --cpu-prof` works on it as is).
 */
import { redisUrlFromEnv } from "@rein/runtime";
import { withBenchEnv } from "./bench-env.ts";
import { turnCosts } from "./turn-costs.ts";

const redisUrl = redisUrlFromEnv();
const rounds = Number(process.env.REIN_BENCH_ROUNDS ?? 3);
const turns = await withBenchEnv(redisUrl, "turns", (env) => turnCosts(env, [20, 200], rounds));
const micros = (value: number | undefined) => `${(value ?? Number.NaN).toFixed(0)} µs`;
for (const count of [20, 200]) {
  const traffic = turns.reinTraffic.get(count);
  process.stdout.write(
    `turn at ${count} turns: rein ${micros(turns.rein.get(count))}, @openai/agents ${micros(turns.agents.get(count))}, bare loop ${micros(turns.bare.get(count))}; ` +
      `rein sends ${traffic?.commands.toFixed(1)} Redis commands and ${traffic?.bytes.toFixed(0)} B per turn\n`,
  );
}
// BullMQ and ioredis leave handles that would keep the process up after cleanup.
process.exit(0);
