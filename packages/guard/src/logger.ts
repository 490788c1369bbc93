import { type DestinationStream, pino, type Logger, type LoggerOptions } from "pino";
import { ReinError } from "@rein/contracts";

export type { Logger };

/** pino's levels, quietest last; REIN_LOG_LEVEL must be one of them. */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const isLogLevel = (value: string): value is LogLevel => (LOG_LEVELS as readonly string[]).includes(value);

/**
 * The level REIN_LOG_LEVEL names, or `fallback` when it is unset. An unknown
 * name is a `config_invalid` error that lists the valid ones, so a typo is
 * reported at start instead of as pino's "must be included in custom levels".
 */
export function logLevelFrom(env: NodeJS.ProcessEnv, fallback: LogLevel): LogLevel {
  const raw = env.REIN_LOG_LEVEL?.trim().toLowerCase();
  if (!raw) return fallback;
  if (!isLogLevel(raw))
    throw new ReinError(
      "config_invalid",
      `REIN_LOG_LEVEL "${env.REIN_LOG_LEVEL}" is not a log level; expected one of: ${LOG_LEVELS.join(", ")}`,
    );
  return raw;
}

/**
 * One structured logger for the library. Level: `options.level`, else
 * REIN_LOG_LEVEL, else "warn". It writes to stderr unless given a
 * destination: stdout belongs to the program's own output (the CLI's
 * progress), which a log line must never land in the middle of.
 */
export function createLogger(options: LoggerOptions = {}, destination?: DestinationStream): Logger {
  const settings: LoggerOptions = { name: "rein", ...options, level: options.level ?? logLevelFrom(process.env, "warn") };
  return pino(settings, destination ?? pino.destination({ dest: 2, sync: true }));
}

/** A log file to append to (its directory made if missing), written synchronously so no line is lost on exit. */
export function logFileDestination(path: string): DestinationStream {
  return pino.destination({ dest: path, append: true, mkdir: true, sync: true });
}
