import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { ReinError } from "@rein/contracts";
import { createLogger, LOG_LEVELS, logLevelFrom } from "../src/logger.ts";

const sink = (lines: string[]) =>
  new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      callback();
    },
  });

describe("log levels", () => {
  it("takes REIN_LOG_LEVEL when it names a level, and the default when it is unset or empty", () => {
    expect(logLevelFrom({ REIN_LOG_LEVEL: "debug" }, "warn")).toBe("debug");
    expect(logLevelFrom({ REIN_LOG_LEVEL: " INFO " }, "warn")).toBe("info");
    expect(logLevelFrom({}, "warn")).toBe("warn");
    expect(logLevelFrom({ REIN_LOG_LEVEL: "" }, "info")).toBe("info");
  });

  it("refuses an unknown REIN_LOG_LEVEL with a config error naming every valid level", () => {
    let caught: unknown;
    try {
      logLevelFrom({ REIN_LOG_LEVEL: "verbose" }, "warn");
    } catch (error) {
      caught = error;
    }
    expect(ReinError.isInstance(caught) && caught.code).toBe("config_invalid");
    const message = (caught as Error).message;
    expect(message).toContain('REIN_LOG_LEVEL "verbose"');
    for (const level of LOG_LEVELS) expect(message).toContain(level);
  });

  it("createLogger refuses an unknown REIN_LOG_LEVEL the same way instead of pino's custom-levels error", () => {
    const previous = process.env.REIN_LOG_LEVEL;
    process.env.REIN_LOG_LEVEL = "verbose";
    try {
      expect(() => createLogger()).toThrow(
        /REIN_LOG_LEVEL "verbose" is not a log level; expected one of: fatal, error, warn, info, debug, trace, silent/,
      );
    } finally {
      if (previous === undefined) delete process.env.REIN_LOG_LEVEL;
      else process.env.REIN_LOG_LEVEL = previous;
    }
  });

  it("an explicit level wins over the environment", () => {
    const lines: string[] = [];
    const logger = createLogger({ level: "info" }, sink(lines));
    logger.info({ runId: "run_1" }, "run submitted");
    logger.debug("hidden");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ level: 30, runId: "run_1", msg: "run submitted", name: "rein" });
  });
});
