/**
 * `pnpm --filter @rein/bench bench:turns`: only the worker's inner turn at
 * 20 and 200 turns (scripted instant model, real Redis), for profiling the
 * step loop without the whole bench (`node --cpu-prof` works on it as is).
 */
import { withBenchEnv } from "./bench-env.ts";
import { innerTurns } from "./inner-turn.ts";
import { redisRoundTripMicros } from "./raw-floor.ts";

const redisUrl = process.env.REIN_REDIS_URL ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const repeats = Number(process.env.REIN_BENCH_REPEATS ?? 5);
const rtt = await withBenchEnv(redisUrl, "turn-floor", (env) => redisRoundTripMicros(env.runtime(), 1000));
const turns = await withBenchEnv(redisUrl, "turns", (env) => innerTurns(env, [20, 200], repeats));
const rows = [...turns.microsPerTurn].map(([count, micros]) => {
  const traffic = turns.trafficPerTurn.get(count);
  return `inner turn at ${count} turns: ${micros.toFixed(0)} µs (Redis PING ${rtt.toFixed(0)} µs), ${traffic?.commands.toFixed(1)} cmds/turn, ${traffic?.bytes.toFixed(0)} B/turn to Redis`;
});
process.stdout.write(`${rows.join("\n")}\n`);
// BullMQ and ioredis leave handles that would keep the process up after cleanup.
process.exit(0);
