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
    expect(JSON.parse(new Redactor().redactJson(json))).toEqual({ card: "card:\n[REDACTED:pii]", ssn: "ssn:\t[REDACTED:pii]", bell: "\u0007[REDACTED:pii]" });
  });

  it("finds a card number that passes Luhn", () => {
    const json = JSON.stringify({ card: "4111 1111 1111 1111" });
    expect(JSON.parse(redactor.redactJson(json)).card).toBe("[REDACTED:pii]");
  });
});
