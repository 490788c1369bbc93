import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.ts";
import { redactingLoggerOptions } from "../../src/sanitize/pino-redaction.ts";
import { Redactor } from "../../src/sanitize/redactor.ts";

const secret = "sk-live-abc123def456";

function capture() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger({ ...redactingLoggerOptions(new Redactor({ secrets: [secret] })), level: "info" }, sink);
  return { logger, records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

/** What ioredis hands its error listeners when Redis is down: a system error with code and errno. */
function connectionRefused(): Error {
  return Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:6390 (auth ${secret})`), {
    code: "ECONNREFUSED",
    errno: -111,
    syscall: "connect",
  });
}

describe("a redacting logger's errors", () => {
  it("keeps an error's type, message, stack and code under err, with secrets redacted", () => {
    const { logger, records } = capture();
    logger.error({ err: connectionRefused() }, "redis connection error");
    const [record] = records();
    const err = record?.err as Record<string, unknown>;
    expect(err.type).toBe("Error");
    expect(err.message).toBe("connect ECONNREFUSED 127.0.0.1:6390 (auth [REDACTED:secret])");
    expect(err.code).toBe("ECONNREFUSED");
    expect(err.stack).toMatch(/^Error: connect ECONNREFUSED 127\.0\.0\.1:6390 \(auth \[REDACTED:secret\]\)\n\s+at /);
    expect(JSON.stringify(record)).not.toContain("abc123");
  });

  it("keeps an error logged on its own, and its cause", () => {
    const { logger, records } = capture();
    logger.error(new Error("step failed", { cause: connectionRefused() }));
    const [record] = records();
    expect(record?.msg).toBe("step failed");
    const err = record?.err as Record<string, unknown>;
    expect(err.message).toBe("step failed");
    expect(String(err.stack)).toContain("step failed");
    expect(JSON.stringify(err)).toContain("ECONNREFUSED");
    expect(JSON.stringify(record)).not.toContain("abc123");
  });

  it("cuts an error's own fields to a log line's size: a Redis reply error carrying its whole command", () => {
    const { logger, records } = capture();
    // What ioredis attaches to a ReplyError: the command, with a Lua script's text and msgpack Buffers among its args.
    const replyError = Object.assign(new Error("NOREPLICAS Not enough good replicas to write."), {
      command: {
        name: "evalsha",
        args: ["x".repeat(5_000), Buffer.alloc(2_000), ...Array.from({ length: 30 }, (_, index) => `key-${index}`)],
      },
    });
    logger.error({ err: replyError }, "plan consumer error");
    const [record] = records();
    const err = record?.err as { message: string; command: { name: string; args: unknown[] } };
    expect(err.message).toBe("NOREPLICAS Not enough good replicas to write.");
    expect(err.command.name).toBe("evalsha");
    expect(err.command.args[0]).toMatch(/^x{300}… \(5000 characters\)$/);
    expect(err.command.args[1]).toBe("<2000 bytes>");
    expect(err.command.args).toHaveLength(21);
    expect(JSON.stringify(record).length).toBeLessThan(3_000);
  });
});
