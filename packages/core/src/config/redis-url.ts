import { DEFAULT_REDIS_URL } from "./config.ts";

/**
 * The Redis a process started without a config file uses (the bench, the
 * test runtime): REIN_REDIS_URL, else REDIS_URL, else the local default,
 * the order loadConfig applies over a config file's `redisUrl`.
 */
export function redisUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.REIN_REDIS_URL ?? env.REDIS_URL ?? DEFAULT_REDIS_URL;
}
