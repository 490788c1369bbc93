import type { LoggerOptions } from "pino";
import type { Redactor } from "./redactor.ts";

/**
 * Pino options that pass every log record and message through a Redactor:
 * `createLogger({ ...redactingLoggerOptions(redactor) })`.
 */
export function redactingLoggerOptions(redactor: Redactor): Pick<LoggerOptions, "formatters" | "hooks"> {
  return {
    formatters: {
      log: (record) => redactor.redactValue(record),
    },
    hooks: {
      logMethod(inputArgs, method) {
        const redacted = inputArgs.map((arg) => redactor.redactValue(arg)) as Parameters<typeof method>;
        return method.apply(this, redacted);
      },
    },
  };
}
