import { describe, expect, it } from "vitest";
import { classifyFailure, type ProviderFailure, retryAfterOf } from "../src/errors-classify.ts";

const http = (status: number, extra: Partial<ProviderFailure> = {}): ProviderFailure => ({ kind: "http", status, ...extra });

describe("classifyFailure", () => {
  it.each([408, 409, 429, 500, 502, 503, 504, 529])("retries HTTP %i", (status) => {
    expect(classifyFailure(http(status)).retryable).toBe(true);
  });

  it.each([400, 401, 403, 404, 413, 422])("does not retry HTTP %i", (status) => {
    expect(classifyFailure(http(status)).retryable).toBe(false);
  });

  it("retries timeouts and connection errors", () => {
    expect(classifyFailure({ kind: "timeout" })).toEqual({ retryable: true, reason: "timeout" });
    expect(classifyFailure({ kind: "connection", message: "ECONNRESET" })).toEqual({ retryable: true, reason: "connection" });
  });

  it("reads stream errors by their type", () => {
    expect(classifyFailure({ kind: "stream", errorType: "overloaded_error" })).toEqual({ retryable: true, reason: "overloaded" });
    expect(classifyFailure({ kind: "stream", errorType: "api_error" }).retryable).toBe(true);
    expect(classifyFailure({ kind: "stream" })).toEqual({ retryable: true, reason: "stream_error" });
    expect(classifyFailure({ kind: "stream", errorType: "invalid_request_error" }).retryable).toBe(false);
  });

  it("treats spent quota and context overflow as final whatever the status", () => {
    expect(classifyFailure(http(429, { errorCode: "insufficient_quota" }))).toEqual({ retryable: false, reason: "quota_exhausted" });
    expect(
      classifyFailure(
        http(429, { errorType: "rate_limit_error", message: "You have reached your specified API usage limits... spend limit" }),
      ).reason,
    ).toBe("quota_exhausted");
    expect(classifyFailure(http(400, { errorType: "billing_error", message: "Your credit balance is too low" })).retryable).toBe(false);
    expect(classifyFailure(http(400, { message: "prompt is too long: 210000 tokens > 200000 maximum" })).reason).toBe(
      "context_length_exceeded",
    );
    expect(classifyFailure(http(400, { errorCode: "context_length_exceeded" })).reason).toBe("context_length_exceeded");
  });

  it("reads spent money from machine-readable codes, with or without prose", () => {
    for (const errorCode of [
      "enforced_spend_limit_reached",
      "insufficient_quota",
      "project_spend_limit_exceeded",
      "organization_usage_limit_exceeded",
      "credit_balance_exhausted",
    ]) {
      expect(classifyFailure(http(429, { errorType: "rate_limit_error", errorCode, message: "Request rejected." }))).toEqual({
        retryable: false,
        reason: "quota_exhausted",
      });
    }
  });

  it("lets x-should-retry override the status both ways, but never a spent quota, and ignores it on a stream error", () => {
    const header = (value: string) => ({ headers: new Headers({ "x-should-retry": value }) });
    expect(classifyFailure(http(503, header("false")))).toMatchObject({ retryable: false, reason: "server_error" });
    expect(classifyFailure(http(400, header("true")))).toMatchObject({ retryable: true, reason: "invalid_request" });
    expect(classifyFailure(http(429, { ...header("true"), errorCode: "enforced_spend_limit_reached" })).retryable).toBe(false);
    expect(classifyFailure({ kind: "stream", errorType: "overloaded_error", ...header("false") }).retryable).toBe(true);
  });

  it("carries the wait a 429 asks for", () => {
    const headers = new Headers({ "retry-after": "12" });
    expect(classifyFailure(http(429, { headers }))).toEqual({ retryable: true, reason: "rate_limited", retryAfterMs: 12_000 });
  });
});

describe("retryAfterOf", () => {
  const now = () => Date.parse("2025-01-01T00:00:00Z");

  it("prefers retry-after-ms", () => {
    expect(retryAfterOf(new Headers({ "retry-after-ms": "250.5", "retry-after": "9" }), now)).toBe(250.5);
  });

  it("reads seconds and HTTP dates", () => {
    expect(retryAfterOf(new Headers({ "retry-after": "1.5" }), now)).toBe(1500);
    expect(retryAfterOf(new Headers({ "retry-after": "Wed, 01 Jan 2025 00:00:10 GMT" }), now)).toBe(10_000);
    expect(retryAfterOf(new Headers({ "retry-after": "Tue, 31 Dec 2024 23:00:00 GMT" }), now)).toBe(0);
  });

  it("ignores absent or unreadable values", () => {
    expect(retryAfterOf(new Headers(), now)).toBeUndefined();
    expect(retryAfterOf(new Headers({ "retry-after": "soon" }), now)).toBeUndefined();
  });
});
