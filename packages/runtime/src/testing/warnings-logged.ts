import type { ReinRuntime } from "../runtime.ts";

/** The messages `runtime`'s logger logs at warn from now on, in order; each is still logged. */
export function warningsLogged(runtime: Pick<ReinRuntime, "logger">): string[] {
  const messages: string[] = [];
  // The logger's type is pino's overloaded one; only the call's arguments matter here.
  const logger = runtime.logger as unknown as { warn: (...args: unknown[]) => void };
  const warn = logger.warn.bind(logger);
  logger.warn = (...args: unknown[]) => {
    const message = args.find((arg) => typeof arg === "string");
    if (typeof message === "string") messages.push(message);
    warn(...args);
  };
  return messages;
}
