import { describe, expect, it } from "vitest";
import { Redactor } from "../../src/index.ts";

describe("Redactor.redactJson", () => {
  const redactor = new Redactor({ secrets: ["tok-9f8e7d6c5b"], patterns: ["^acct-\\d{6}$"] });

  it("returns text with nothing to redact unchanged, byte for byte", () => {
    const json = '{"b":1,"a":"plain text","hash":"sha256:4111111111111111111111111111111111111111111111111111111111111111"}';
    expect(new Redactor().redactJson(json)).toBe(json);
  });

  it("finds an e-mail right after an escaped newline", () => {
    const json = JSON.stringify({ note: "contact:\nbob@example.com" });
    expect(JSON.parse(redactor.redactJson(json)).note).toBe("contact:\n[REDACTED:pii]");
  });

  it("finds a secret nested deep, and its JSON-escaped form", () => {
    const json = JSON.stringify({ a: [{ b: { c: 'Bearer "tok-9f8e7d6c5b"' } }] });
    expect(redactor.redactJson(json)).not.toContain("tok-9f8e7d6c5b");
  });

  it("applies a configured pattern anchored to a whole value", () => {
    const json = JSON.stringify({ account: "acct-123456" });
    expect(JSON.parse(redactor.redactJson(json)).account).toBe("[REDACTED:pii]");
  });

  it("finds a card number or a US SSN right after an escaped control character", () => {
    const json = JSON.stringify({ card: "card:\n4111111111111111", ssn: "ssn:\t123-45-6789", bell: "\u00074111111111111111" });
    expect(JSON.parse(new Redactor().redactJson(json))).toEqual({
      card: "card:\n[REDACTED:pii]",
      ssn: "ssn:\t[REDACTED:pii]",
      bell: "\u0007[REDACTED:pii]",
    });
  });

  it("leaves JSON whose only card- or SSN-shaped digits are numbers as written, not re-serialised", () => {
    // Re-serialised, 1.50 would read 1.5: the text coming back whole shows no parse and walk happened.
    const json = '{"durationMs":0.16619700000046578,"maximum":9007199254740991,"card":4111111111111111,"ratio":1.50}';
    expect(new Redactor().redactJson(json)).toBe(json);
  });

  it("still finds a card number or an SSN in a string that sits among numbers, after an escaped quote, or as a key", () => {
    const json =
      '{"n":4111111111111111,"note":"paid with \\"4111 1111 1111 1111\\" today","ssn":"123-45-6789","m":1.50,"4111111111111111":2}';
    const redacted = new Redactor().redactJson(json);
    expect(JSON.parse(redacted)).toEqual({
      n: 4111111111111111,
      note: 'paid with "[REDACTED:pii]" today',
      ssn: "[REDACTED:pii]",
      m: 1.5,
      "4111111111111111": 2,
    });
  });

  it("finds a card number that passes Luhn", () => {
    const json = JSON.stringify({ card: "4111 1111 1111 1111" });
    expect(JSON.parse(redactor.redactJson(json)).card).toBe("[REDACTED:pii]");
  });
});
