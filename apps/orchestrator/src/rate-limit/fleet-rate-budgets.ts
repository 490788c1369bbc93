import { budgetFor, type RateLimiter, type RateScope, type RateSnapshot } from "@rein/models/rate-limit";
import { errorMessage } from "@rein/contracts";
import { connectRedis, createRuntime, RedisRateLimiter, type ReinConfig, type ReinRuntime, redactPassword } from "@rein/runtime";

/** The limiter's reading side: every scope some process limited, and one scope's budget as it stands. */
export type RateBudgetReader = Pick<RateLimiter, "snapshot"> & { scopes(): Promise<RateScope[]> };

/**
 * Each limited provider and model as the fleet's limiter keeps it in Redis:
 * the scopes any process has limited, and those this config limits for a
 * role, so every process reports the fleet's numbers. The configured budget
 * is this config's; a model it does not limit shows what was learned alone.
 */
export async function readRateBudgets(limiter: RateBudgetReader, config: Pick<ReinConfig, "providers" | "roles">): Promise<RateSnapshot[]> {
  const scopes = new Map<string, RateScope>();
  for (const role of Object.values(config.roles))
    if (config.providers[role.provider]?.limits)
      scopes.set(`${role.provider}/${role.model}`, { provider: role.provider, model: role.model });
  for (const scope of await limiter.scopes()) scopes.set(`${scope.provider}/${scope.model}`, scope);
  const ordered = [...scopes.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, scope]) => scope);
  return Promise.all(
    ordered.map((scope) => {
      const limits = config.providers[scope.provider]?.limits;
      return limiter.snapshot(scope, limits ? budgetFor(limits, scope.model) : {});
    }),
  );
}

/** The fleet's budgets read through this runtime's Redis. */
export function fleetRateBudgets(runtime: Pick<ReinRuntime, "redis" | "keys" | "config">): Promise<RateSnapshot[]> {
  return readRateBudgets(new RedisRateLimiter(runtime.redis, runtime.keys), runtime.config);
}

/** The fleet's budgets, or why they could not be read. */
export type FleetRateReading = { budgets: RateSnapshot[] } | { unread: string };

/**
 * For a command that opens no runtime (`rein models`): one short-lived
 * connection that neither retries nor queues, so a Redis that does not
 * answer within `timeoutMs` is said, not waited for.
 */
export async function readFleetRateBudgets(config: ReinConfig, timeoutMs = 1_000): Promise<FleetRateReading> {
  if (config.redis.cluster) return readThroughCluster(config, timeoutMs);
  const redis = connectRedis(config.redisUrl, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  redis.on("error", () => {});
  try {
    await redis.connect();
    return { budgets: await readRateBudgets(RedisRateLimiter.forPrefix(redis, config.prefix), config) };
  } catch (error) {
    return { unread: `no Redis answers at ${redactPassword(config.redisUrl)} (${errorMessage(error)})` };
  } finally {
    redis.disconnect();
  }
}

/**
 * On a cluster, through the runtime's own connections, which follow the slot
 * map; they wait out a failover, so the read is bounded here instead.
 */
async function readThroughCluster(config: ReinConfig, timeoutMs: number): Promise<FleetRateReading> {
  const runtime = createRuntime(config, { logLevel: "silent" });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return { budgets: await Promise.race([fleetRateBudgets(runtime), timedOut]) };
  } catch (error) {
    const seeds = (config.redis.cluster ?? []).map(redactPassword).join(", ");
    return { unread: `no Redis Cluster answers at ${seeds} (${errorMessage(error)})` };
  } finally {
    clearTimeout(timer);
    await runtime.close();
  }
}
