import type { LoggerOptions } from "pino";
import { loggedError, withLoggedErrors } from "./logged-error.ts";
import type { Redactor } from "./redactor.ts";

/**
 * Pino options that pass every log record and message through a Redactor:
 * `createLogger({ ...redactingLoggerOptions(redactor) })`. Errors keep their
 * message, stack and cause, redacted like the rest.
 */
export function redactingLoggerOptions(redactor: Redactor): Pick<LoggerOptions, "formatters" | "hooks" | "serializers"> {
  return {
    // Already a `loggedError` record; pino's own serializer would re-type it "Object" and fold the causes into its message.
    serializers: { err: (value: unknown) => value },
    formatters: {
      log: (record) => redactor.redactValue(withLoggedErrors(record) as Record<string, unknown>),
    },
    hooks: {
      logMethod(inputArgs, method) {
        const [first, ...rest] = inputArgs as unknown[];
        // `logger.error(error)` and `logger.error(error, "text")` mean `{ err: error }`, as pino reads them.
        const args =
          first instanceof Error
            ? [{ err: loggedError(first) }, ...(rest.length > 0 ? rest : [first.message])]
            : [withLoggedErrors(first), ...rest];
        const redacted = args.map((arg) => redactor.redactValue(arg)) as Parameters<typeof method>;
        return method.apply(this, redacted);
      },
    },
  };
}
