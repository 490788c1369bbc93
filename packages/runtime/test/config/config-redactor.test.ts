import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { ReinConfig } from "../../src/config/config.ts";
import { secretsAndRedactor } from "../../src/config/config-redactor.ts";
import { createLogger, redactingLoggerOptions } from "@rein/guard";

const env = {
  GITHUB_TOKEN: "ghp_TOOLSECRET_91c2e7",
  NOT_LISTED: "unlisted-value-123",
  ANTHROPIC_API_KEY: "sk-ant-CANARY-5d1f0b",
  WORKER_KEY: "sk-openai-CANARY-a83c44",
};

const config = ReinConfig.parse({
  providers: {
    claude: { kind: "anthropic" },
    gpt: { kind: "openai", apiKeyEnv: "WORKER_KEY" },
    local: { kind: "openai-compatible", baseURL: "http://127.0.0.1:1/v1" },
  },
  roles: {
    planner: { provider: "claude", model: "c" },
    worker: { provider: "gpt", model: "g" },
    evaluator: { provider: "local", model: "l" },
    judge: { provider: "local", model: "l" },
  },
  secrets: [{ env: "GITHUB_TOKEN", tools: ["gh_issue"], hosts: ["api.github.com:443"] }, "ANTHROPIC_API_KEY"],
  redaction: { patterns: ["EMP-\\d{6}"] },
});

describe("secretsAndRedactor", () => {
  it("lets a tool read only the listed secrets bound to it", () => {
    const { secrets } = secretsAndRedactor(config, env);
    expect(secrets.names()).toEqual(["ANTHROPIC_API_KEY", "GITHUB_TOKEN"]);
    const reader = secrets.readerFor("gh_issue");
    expect(reader.get("GITHUB_TOKEN")).toBe(env.GITHUB_TOKEN);
    expect(reader.get("NOT_LISTED")).toBeUndefined();
    expect(reader.bound()).toEqual({ GITHUB_TOKEN: env.GITHUB_TOKEN });
    // Listed by its bare name: redacted, bound to nothing, so no tool reads it.
    expect(() => reader.get("ANTHROPIC_API_KEY")).toThrow(/not bound to gh_issue/);
    expect(() => secrets.readerFor("other_tool").get("GITHUB_TOKEN")).toThrow(/not bound to other_tool/);
    expect(secrets.boundTo("other_tool")).toEqual({});
  });

  it("refuses a bare host where a secret's hosts need host:port", () => {
    const parsed = ReinConfig.safeParse({ secrets: [{ env: "GITHUB_TOKEN", hosts: ["api.github.com"] }] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toContain('did you mean "api.github.com:443"');
  });

  it("redacts tool secrets, every provider's API key, PII and the configured patterns", () => {
    const { redactor } = secretsAndRedactor(config, env);
    const text = `token ${env.GITHUB_TOKEN} keys ${env.ANTHROPIC_API_KEY} ${env.WORKER_KEY} mail ana@example.com id EMP-123456 other ${env.NOT_LISTED}`;
    const { text: redacted } = redactor.redact(text);
    for (const value of [env.GITHUB_TOKEN, env.ANTHROPIC_API_KEY, env.WORKER_KEY, "ana@example.com", "EMP-123456"])
      expect(redacted).not.toContain(value);
    expect(redacted).toContain(env.NOT_LISTED);
  });

  it("rejects a key pasted where an environment variable name belongs", () => {
    expect(ReinConfig.safeParse({ secrets: ["ghp_abc123"] }).success).toBe(false);
  });

  it("makes a pino logger that never writes a secret", () => {
    const { redactor } = secretsAndRedactor(config, env);
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(chunk.toString());
        callback();
      },
    });
    const logger = createLogger({ ...redactingLoggerOptions(redactor), level: "info" }, sink);
    logger.info({ headers: { authorization: `Bearer ${env.WORKER_KEY}` } }, `called with ${env.GITHUB_TOKEN}`);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(env.WORKER_KEY);
    expect(lines[0]).not.toContain(env.GITHUB_TOKEN);
    expect(lines[0]).toContain("[REDACTED:secret]");
  });
});
