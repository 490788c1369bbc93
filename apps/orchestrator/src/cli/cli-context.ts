import { logFileDestination, type LogLevel, logLevelFrom } from "@rein/guard";
import {
  assertRedis,
  createRuntime,
  DEFAULT_REDIS_URL,
  loadConfig,
  type ReinConfig,
  type ReinConfigInput,
  type ReinRuntime,
} from "@rein/runtime";
import { UNSANDBOXED_WARNING } from "@rein/sandbox/config";
import { ensureRedis, type RedisHandle } from "../redis/embedded-redis.ts";
import type { FlagValues, GLOBAL_FLAGS } from "./command-spec.ts";
import { err } from "./output.ts";

export interface CliContext {
  config: ReinConfig;
  runtime: ReinRuntime;
  redis: RedisHandle;
  close(): Promise<void>;
}

export interface OpenOptions {
  configFile?: string;
  /** `--redis URL`: wins over REDIS_URL and the config's redisUrl. */
  redisUrl?: string;
  /** `--prefix P`: wins over REIN_PREFIX and the config's prefix. */
  prefix?: string;
  overrides?: ReinConfigInput;
  /** Start a private redis-server when none is configured and none answers on the default port (`rein run` and friends). */
  embedRedis?: boolean;
  /** `--log-file PATH`: the logger appends there instead of writing to stderr. */
  logFile?: string;
  /**
   * The level when REIN_LOG_LEVEL is unset and there is no log file: "info"
   * for services (`rein serve`, `rein worker`), whose log is their output;
   * "warn" for commands that print for people. A log file gets "info".
   */
  logLevel?: LogLevel;
}

/** The options every command's flags give `openContext`: `--config`, `--redis`, `--prefix` and `--log-file`. */
export function contextFlags(flags: FlagValues<typeof GLOBAL_FLAGS>): Pick<OpenOptions, "configFile" | "redisUrl" | "prefix" | "logFile"> {
  return { configFile: flags.config, redisUrl: flags.redis, prefix: flags.prefix, logFile: flags["log-file"] };
}

/**
 * The config a command runs with: the file, then the environment, then
 * `--redis` and `--prefix`. `--prefix` stands in for REIN_PREFIX, so it is
 * validated as that is.
 */
export function loadCliConfig(options: Pick<OpenOptions, "configFile" | "redisUrl" | "prefix" | "overrides">): ReinConfig {
  const env = options.prefix === undefined ? process.env : { ...process.env, REIN_PREFIX: options.prefix };
  const config = loadConfig({ file: options.configFile, overrides: options.overrides, env });
  return options.redisUrl ? { ...config, redisUrl: options.redisUrl } : config;
}

/**
 * Loads config, finds (or, for `rein run`, starts) Redis, and builds the
 * runtime. Redis is resolved the same way for every command: `--redis`, then
 * REIN_REDIS_URL / REDIS_URL, then the config's redisUrl, then the default;
 * whichever is chosen must answer within a few seconds, or the command fails
 * with one message naming it.
 */
export async function openContext(options: OpenOptions): Promise<CliContext> {
  let config = loadCliConfig(options);
  let redis: RedisHandle = { url: config.redisUrl, embedded: false, stop: async () => {} };
  if (options.embedRedis) {
    redis = await ensureRedis(config.redisUrl === DEFAULT_REDIS_URL ? undefined : config.redisUrl);
    config = { ...config, redisUrl: redis.url };
  } else {
    // A cluster answers PING at any of its seeds; the stores then follow its slot map.
    await assertRedis(config.redis.cluster?.[0] ?? config.redisUrl);
  }
  const runtime = createRuntime(config, {
    logLevel: logLevelFrom(process.env, options.logFile ? "info" : (options.logLevel ?? "warn")),
    logDestination: options.logFile ? logFileDestination(options.logFile) : undefined,
  });
  return {
    config,
    runtime,
    redis,
    close: async () => {
      await runtime.close();
      await redis.stop();
    },
  };
}

/** People must see when programs run without a sandbox; each run also traces `sandbox.disabled`. */
export function warnIfUnsandboxed(config: ReinConfig): void {
  if (config.sandbox === "none") err(`rein: WARNING: ${UNSANDBOXED_WARNING}`);
}

/** Runs `body` with a context opened from the command's global flags, closed whatever happens. */
export async function withContext<T>(flags: FlagValues<typeof GLOBAL_FLAGS>, body: (context: CliContext) => Promise<T>): Promise<T> {
  const context = await openContext(contextFlags(flags));
  try {
    return await body(context);
  } finally {
    await context.close();
  }
}
