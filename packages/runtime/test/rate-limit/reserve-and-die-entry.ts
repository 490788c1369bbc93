// A process that takes a reservation of the fleet's rate budget and is killed holding it
// (rate-limiter.int.test.ts): it prints "reserved" and waits to be SIGKILLed.
import { connectRedis } from "../../src/index.ts";
import { RedisKeys } from "../../src/redis/keys.ts";
import { RedisRateLimiter } from "../../src/rate-limit/redis-rate-limiter.ts";

const redis = connectRedis(process.env.LIMIT_REDIS_URL ?? "");
const limiter = new RedisRateLimiter(redis, new RedisKeys(process.env.LIMIT_PREFIX ?? ""));
const outcome = await limiter.reserve(
  { provider: "anthropic", model: "claude-test" },
  {
    id: "held-by-the-dead",
    demand: { inputTokens: 100, outputTokens: 100 },
    budget: { maxInFlight: 1 },
    leaseMs: Number(process.env.LIMIT_LEASE_MS),
    waitedMs: 0,
  },
);
process.stdout.write(outcome.granted ? "reserved\n" : `refused ${JSON.stringify(outcome)}\n`);
setInterval(() => undefined, 60_000);
