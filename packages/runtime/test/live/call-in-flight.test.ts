import { describe, expect, it } from "vitest";
import { liveEventOf } from "../../src/live/live-event.ts";
import { type ModelProvider, type ModelRequest, type ModelResponse, type ModelStreamEvent, tracedComplete } from "@rein/models";
import type { TraceWriter } from "@rein/trace";

const request: ModelRequest = { role: "worker", system: "s", messages: [{ role: "user", content: [{ type: "text", text: "go" }] }] };

const trace: TraceWriter = { append: async () => undefined, putBlobs: async () => {} };

/** A provider whose one call ends as `outcome` says, streaming a delta first. */
function provider(outcome: "answers" | "fails"): ModelProvider {
  return {
    kind: "scripted",
    name: "test",
    model: "m",
    async complete(_request, options): Promise<ModelResponse> {
      options?.onEvent?.({ type: "text_delta", text: "thinking" });
      if (outcome === "fails") throw new Error("upstream gone");
      return {
        content: [{ type: "text", text: "done" }],
        stopReason: "end_turn",
        usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
        provider: "test",
        model: "m",
        retries: 0,
      };
    },
  };
}

describe("a model call says when it starts and when it ends", () => {
  it("reports call_started before anything the provider streams and call_finished with its duration after", async () => {
    const events: ModelStreamEvent[] = [];
    await tracedComplete(provider("answers"), request, { trace, runId: "run_1" }, { onEvent: (event) => events.push(event) });
    expect(events.map((event) => event.type)).toEqual(["call_started", "text_delta", "call_finished"]);
    const finished = events.at(-1);
    expect(finished?.type === "call_finished" && finished.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("reports call_finished for a call that fails too, so nobody waits on a call that is over", async () => {
    const events: ModelStreamEvent[] = [];
    await expect(
      tracedComplete(provider("fails"), request, { trace, runId: "run_1" }, { onEvent: (event) => events.push(event) }),
    ).rejects.toThrow(/upstream gone/);
    expect(events.map((event) => event.type)).toEqual(["call_started", "text_delta", "call_finished"]);
  });

  it("goes out on the run's live channel with its run, step and role", () => {
    const source = { runId: "run_1", stepId: "s1", role: "worker" as const };
    expect(liveEventOf({ type: "call_started" }, source)).toEqual({ type: "call_started", ...source });
    expect(liveEventOf({ type: "call_finished", durationMs: 12 }, source)).toEqual({ type: "call_finished", ...source, durationMs: 12 });
  });
});
