/** The Redis used when neither `--redis`, REIN_REDIS_URL / REDIS_URL nor the config names one. */
export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";

/** The Redis the environment names, if it names one: REIN_REDIS_URL, else REDIS_URL (it wins over a config file's `redisUrl`). */
export function redisUrlNamedBy(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.REIN_REDIS_URL || env.REDIS_URL || undefined;
}

/**
 * The Redis a process started without a config file uses (the bench, the
 * test runtime): the one the environment names, else the local default, the
 * order loadConfig applies over a config file's `redisUrl`.
 */
export function redisUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return redisUrlNamedBy(env) ?? DEFAULT_REDIS_URL;
}
