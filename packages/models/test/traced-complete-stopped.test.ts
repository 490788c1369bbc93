import { describe, expect, it } from "vitest";
import type { ModelProvider, ModelRequest } from "../src/model-provider.ts";
import { tracedComplete } from "../src/traced-complete.ts";
import { MemoryTrace } from "./fixtures.ts";

let called: () => void = () => {};
/** A provider whose call is still in flight when its signal aborts, as a shutdown's or a cancel's does. */
const inFlight: ModelProvider = {
  name: "p",
  kind: "scripted",
  model: "m",
  complete: (_request, options) =>
    new Promise((_resolve, reject) => {
      options?.signal?.addEventListener("abort", () => reject(options.signal?.reason), { once: true });
      called();
    }),
};
const request: ModelRequest = { role: "worker", system: "s", messages: [{ role: "user", content: [{ type: "text", text: "go" }] }] };

describe("a model call stopped by its caller", () => {
  it("is traced as stopped, not as the provider's failure", async () => {
    const trace = new MemoryTrace();
    const stop = new AbortController();
    const inCall = new Promise<void>((resolve) => {
      called = resolve;
    });
    const call = tracedComplete(inFlight, request, { trace, runId: "run_1" }, { signal: stop.signal });
    await inCall;
    stop.abort(new Error("shutdown: grace period over, giving the job back"));
    await expect(call).rejects.toThrow(/shutdown/);
    const failed = trace.events.find((event) => event.kind === "model.failed");
    expect(failed?.payload).toMatchObject({ role: "worker", aborted: true, error: expect.stringContaining("shutdown") });
  });

  it("is traced as the provider's failure when nothing stopped it", async () => {
    const trace = new MemoryTrace();
    const refusing: ModelProvider = { ...inFlight, complete: async () => Promise.reject(new Error("overloaded")) };
    await expect(tracedComplete(refusing, request, { trace, runId: "run_1" })).rejects.toThrow(/overloaded/);
    expect(trace.events.find((event) => event.kind === "model.failed")?.payload).not.toHaveProperty("aborted");
  });
});
