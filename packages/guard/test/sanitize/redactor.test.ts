import { Writable } from "node:stream";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { passesLuhn } from "../../src/sanitize/luhn.ts";
import { redactingLoggerOptions } from "../../src/sanitize/pino-redaction.ts";
import { Redactor } from "../../src/sanitize/redactor.ts";
import { SecretBindings } from "../../src/secrets/secret-bindings.ts";

const secret = 'sk-live-"abc123\\xyz';

describe("Redactor", () => {
  const redactor = new Redactor({ secrets: [secret, "short"], patterns: ["EMP-\\d{6}"] });

  it("removes secret values, also URL-, JSON- and base64-encoded", () => {
    const text = `a ${secret} b ${encodeURIComponent(secret)} c ${Buffer.from(secret).toString("base64")} d ${JSON.stringify(secret)}`;
    const result = redactor.redact(text);
    expect(result.text).not.toContain("abc123");
    expect(result.text).not.toContain(Buffer.from(secret).toString("base64"));
    expect(result.secrets).toBe(4);
    // Values too short to be credentials are not hunted for.
    expect(redactor.redact("a short word").text).toBe("a short word");
  });

  it("removes a secret broken across lines, spaced out, in hex, or inside a longer base64 blob", () => {
    const value = "sk-rein/Zq8vK3+pX9wL2=xT4";
    const long = new Redactor({ secrets: [value] });
    const forms = [
      `${value.slice(0, 9)}\n${value.slice(9)}`,
      [...value].join(" "),
      JSON.stringify(`${value.slice(0, 12)}\n${value.slice(12)}`),
      Buffer.from(value).toString("hex"),
      Buffer.from(value)
        .toString("base64")
        .replace(/(.{12})/g, "$1\n"),
      Buffer.from(`x${value}`).toString("base64"),
      Buffer.from(`xy${value}`).toString("base64"),
      Buffer.from(JSON.stringify({ token: value })).toString("base64"),
    ];
    for (const form of forms) {
      const result = long.redact(`before ${form} after`);
      expect({ form, secrets: result.secrets > 0 }).toEqual({ form, secrets: true });
      expect(result.text).not.toContain(value.slice(8, 16));
      expect(long.redactJson(JSON.stringify({ form }))).toContain("[REDACTED:secret]");
    }
    expect(long.redact("a sentence about sk and rein with nothing secret").secrets).toBe(0);
  });

  it("removes emails, Luhn-valid card numbers, SSNs and configured patterns", () => {
    const result = redactor.redact("mail bob@example.co.uk card 4111 1111 1111 1111 ssn 123-45-6789 id EMP-123456");
    expect(result.text).toBe("mail [REDACTED:pii] card [REDACTED:pii] ssn [REDACTED:pii] id [REDACTED:pii]");
    expect(result.pii).toBe(4);
  });

  it("leaves numbers that only look like cards or SSNs", () => {
    const text = "order 1234 5678 9012 3456 and 000-12-3456 and 2024-01-15 and sha256:ab4111111111111111cd and id_123-45-6789x";
    expect(redactor.redact(text).text).toBe(text);
    expect(passesLuhn("4111111111111111")).toBe(true);
    expect(passesLuhn("1234567890123456")).toBe(false);
  });

  it("keeps trace JSON valid while redacting its strings", () => {
    const json = JSON.stringify({ payload: { header: `Bearer ${secret}`, list: ["bob@example.com", 3] } });
    const redacted = JSON.parse(redactor.redactJson(json));
    expect(redacted).toEqual({ payload: { header: "Bearer [REDACTED:secret]", list: ["[REDACTED:pii]", 3] } });
  });

  it("redacts pino records and messages", () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = pino({ ...redactingLoggerOptions(redactor) }, sink);
    logger.info({ token: secret, nested: { mail: "eve@example.org" } }, `using ${secret}`);
    expect(lines.join("")).not.toContain("abc123");
    expect(lines.join("")).not.toContain("eve@example.org");
    expect(lines.join("")).toContain("[REDACTED:secret]");
  });
});

describe("SecretBindings", () => {
  it("reads only the names it was given", () => {
    const secrets = SecretBindings.fromEnv([{ env: "API_TOKEN", tools: ["t"], hosts: [] }], { API_TOKEN: "tok-123456", HOME: "/root" });
    expect(secrets.readerFor("t").get("API_TOKEN")).toBe("tok-123456");
    expect(secrets.readerFor("t").get("HOME")).toBeUndefined();
    expect(secrets.values()).toEqual(["tok-123456"]);
  });
});
