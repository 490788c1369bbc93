import { type DestinationStream, pino, type Logger, type LoggerOptions } from "pino";

export type { Logger };

/**
 * One structured logger for the library. Level comes from REIN_LOG_LEVEL,
 * default "warn" so a CLI's own output stays readable.
 */
export function createLogger(options: LoggerOptions = {}, destination?: DestinationStream): Logger {
  const settings: LoggerOptions = { name: "rein", level: process.env.REIN_LOG_LEVEL ?? "warn", ...options };
  return destination ? pino(settings, destination) : pino(settings);
}

export const rootLogger: Logger = createLogger();
