import { describe, expect, it } from "vitest";
import { ReinError } from "@rein/contracts";
import type { ProviderFailure } from "../src/errors-classify.ts";
import type { ModelStreamEvent } from "../src/model-provider.ts";
import { backoffDelay, withRetries } from "../src/retry.ts";

class FakeFailure extends Error {
  constructor(readonly failure: ProviderFailure) {
    super(failure.message ?? "failure");
  }
}

const context = (events: ModelStreamEvent[] = [], signal?: AbortSignal) => ({
  provider: "fake",
  model: "m",
  secrets: [],
  onEvent: (event: ModelStreamEvent) => events.push(event),
  toFailure: (error: unknown) => (error instanceof FakeFailure ? error.failure : undefined),
  ...(signal ? { signal } : {}),
});

describe("backoffDelay", () => {
  it("is full jitter under an exponential bound with a cap", () => {
    const policy = { maxRetries: 9, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(backoffDelay(0, { ...policy, random: () => 0.999 })).toBe(99);
    expect(backoffDelay(3, { ...policy, random: () => 0.5 })).toBe(400);
    expect(backoffDelay(8, { ...policy, random: () => 0.5 })).toBe(500);
    expect(backoffDelay(8, { ...policy, random: () => 0 })).toBe(0);
  });
});

describe("withRetries", () => {
  it("retries retryable failures, reports each retry and counts them", async () => {
    const failures = [new FakeFailure({ kind: "http", status: 503 }), new FakeFailure({ kind: "timeout" })];
    const waits: number[] = [];
    const events: ModelStreamEvent[] = [];
    const result = await withRetries(
      async () => {
        const next = failures.shift();
        if (next) throw next;
        return "ok";
      },
      { maxRetries: 5, baseDelayMs: 100, random: () => 0.5, sleep: async (ms) => void waits.push(ms) },
      context(events),
    );
    expect(result).toEqual({ value: "ok", retries: 2 });
    expect(waits).toEqual([50, 100]);
    expect(events).toEqual([
      { type: "retry", attempt: 1, delayMs: 50, reason: "server_error" },
      { type: "retry", attempt: 2, delayMs: 100, reason: "timeout" },
    ]);
  });

  it("waits a retry-after within the cap, and fails at once with the server's delay when it is longer", async () => {
    const waits: number[] = [];
    const rateLimited = (seconds: string) =>
      new FakeFailure({ kind: "http", status: 429, headers: new Headers({ "retry-after": seconds }) });
    const failures = [rateLimited("20"), rateLimited("3600")];
    let calls = 0;
    const error = await withRetries(
      async () => {
        calls += 1;
        const next = failures.shift();
        if (next) throw next;
        return "ok";
      },
      { maxRetries: 5, maxDelayMs: 30_000, sleep: async (ms) => void waits.push(ms) },
      context(),
    ).catch((caught: unknown) => caught);
    expect(calls).toBe(2);
    expect(waits).toEqual([20_000]);
    expect(ReinError.hasCode(error, "model_error")).toBe(true);
    expect((error as ReinError).message).toContain("asked to wait 3600 s");
    expect((error as ReinError).details).toMatchObject({ reason: "rate_limited", retryAfterMs: 3_600_000, retries: 1 });
  });

  it("does not retry a final failure", async () => {
    let calls = 0;
    const error = await withRetries(
      async () => {
        calls += 1;
        throw new FakeFailure({ kind: "http", status: 401, message: "bad key" });
      },
      { maxRetries: 5, sleep: async () => {} },
      context(),
    ).catch((caught: unknown) => caught);
    expect(calls).toBe(1);
    expect(ReinError.hasCode(error, "model_error")).toBe(true);
    expect((error as ReinError).retryable).toBe(false);
    expect((error as ReinError).message).toContain("bad key");
  });

  it("lets errors that are not provider failures through unchanged", async () => {
    const own = new Error("a bug");
    await expect(withRetries(async () => Promise.reject(own), { maxRetries: 3, sleep: async () => {} }, context())).rejects.toBe(own);
  });

  it("stops with the abort reason when the signal fires during a wait", async () => {
    const controller = new AbortController();
    const error = await withRetries(
      async () => {
        throw new FakeFailure({ kind: "http", status: 503 });
      },
      {
        maxRetries: 5,
        sleep: async () => {
          controller.abort(new Error("cancelled by the run"));
        },
      },
      context([], controller.signal),
    ).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe("cancelled by the run");
  });
});
