import { pino, type Logger, type LoggerOptions } from "pino";

export type { Logger };

/**
 * One structured logger for the library. Level comes from REIN_LOG_LEVEL,
 * default "warn" so a CLI's own output stays readable.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino({
    name: "rein",
    level: process.env.REIN_LOG_LEVEL ?? "warn",
    ...options,
  });
}

export const rootLogger: Logger = createLogger();
