import { describe, expect, it } from "vitest";
import type { Price } from "../../src/model-config.ts";
import { ReinError } from "@rein/contracts";
import {
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamEvent,
  textOf,
  toolCallsOf,
} from "../../src/model-provider.ts";
import { costOf } from "../../src/pricing.ts";
import type { WireFailure, WireReply } from "../../src/testing/index.ts";

/**
 * One request's worth of what the provider under test is made to do.
 * `measuredUsage`: the server reports the usage it measured itself (its
 * prompt cache), not the reply's.
 */
export type ConformanceStep = { reply: WireReply; measuredUsage?: boolean } | { fail: WireFailure } | { cut: WireReply };

export interface ServedProvider {
  provider: ModelProvider;
  /** How many requests reached whatever serves the provider. */
  requestCount(): number;
  close(): Promise<void>;
}

/**
 * How one provider kind is put under the suite. A provider that has no
 * wire (scripted, replay) cannot fail or be cut, and says so in
 * `supports`; everything it does support it must do exactly as the others.
 */
export interface ConformanceHarness {
  name: string;
  supports: {
    /** HTTP errors, connection resets, error events and cut streams. */
    failures: boolean;
    /** `tool_call_delta` events while a call's arguments stream. */
    toolCallDeltas: boolean;
    /** A price turns usage into `costUsd` (billed providers). */
    cost: boolean;
    /**
     * The model's reasoning comes back as `thinking` blocks (streamed as
     * `thinking_delta`), and goes back unmodified in a tool loop: the
     * harness's server refuses a request whose reasoning was altered.
     */
    thinking?: boolean;
    /** The server keeps a prompt cache and reports the reads and writes the provider's cache breakpoints earn. */
    promptCache?: boolean;
  };
  /** A provider that serves `steps` in order, one per request, retrying at most `maxRetries` times without waiting. */
  start(steps: ConformanceStep[], options?: { price?: Price; maxRetries?: number }): Promise<ServedProvider>;
}

const usage = { inputTokens: 120, outputTokens: 30, cacheReadTokens: 40, cacheWriteTokens: 0, costUsd: 0 };
const textReply = (text: string): WireReply => ({
  content: [{ type: "text", text }],
  stopReason: "end_turn",
  usage,
  model: "conformance-model",
});
const callsReply: WireReply = {
  content: [
    { type: "text", text: "Reading both." },
    { type: "tool_call", id: "call_a", name: "read_file", input: { path: "src/a.ts" } },
    { type: "tool_call", id: "call_b", name: "read_file", input: { path: "src/b.ts", lines: [1, 20] } },
  ],
  stopReason: "tool_use",
  usage,
  model: "conformance-model",
};
const verdict = { decision: "continue", reasons: ["tests pass"], confidence: 0.9 };
const outputReply: WireReply = {
  content: [{ type: "text", text: JSON.stringify(verdict) }],
  stopReason: "end_turn",
  usage,
  model: "conformance-model",
  output: verdict,
};

const request: ModelRequest = {
  role: "worker",
  system: "You are the worker.",
  messages: [{ role: "user", content: [{ type: "text", text: "Compare src/a.ts and src/b.ts." }] }],
  tools: [
    {
      name: "read_file",
      description: "Reads a file",
      inputSchema: {
        type: "object",
        properties: { path: { type: "string" }, lines: { type: "array", items: { type: "integer" } } },
        required: ["path"],
      },
    },
  ],
};
const structuredRequest: ModelRequest = {
  ...request,
  role: "judge",
  tools: [],
  output: {
    name: "verdict",
    schema: {
      type: "object",
      properties: { decision: { type: "string" }, reasons: { type: "array", items: { type: "string" } }, confidence: { type: "number" } },
      required: ["decision", "reasons", "confidence"],
      additionalProperties: false,
    },
  },
};
const price: Price = { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 };

/** The answer without the reasoning a current model returns before it: thinking is not the answer. */
const answerOf = (content: ModelResponse["content"] | undefined) => (content ?? []).filter((block) => block.type !== "thinking");
const thinkingOf = (text: string) => ({
  type: "thinking" as const,
  text,
  signature: "",
  producer: { api: "openai-responses" as const, model: "conformance" },
});
const reasonedCalls: WireReply = { ...callsReply, content: [thinkingOf("Both files decide it."), ...callsReply.content] };

async function run(
  harness: ConformanceHarness,
  steps: ConformanceStep[],
  ask: (provider: ModelProvider) => Promise<ModelResponse>,
  options: { price?: Price; maxRetries?: number } = {},
) {
  const served = await harness.start(steps, options);
  try {
    const outcome = await ask(served.provider).then(
      (response) => ({ response, error: undefined }),
      (error: unknown) => ({ response: undefined, error }),
    );
    return { ...outcome, requests: served.requestCount() };
  } finally {
    await served.close();
  }
}

const streamed = (events: ModelStreamEvent[]) => (provider: ModelProvider) =>
  provider.complete(request, { onEvent: (event) => events.push(event) });

/**
 * The behaviours every `ModelProvider` shares, whatever it speaks to. A new
 * provider is added by writing its harness and passing this suite.
 */
export function describeProviderConformance(harness: ConformanceHarness): void {
  describe(`${harness.name} conforms to ModelProvider`, () => {
    it.each([false, true])("answers text (streamed: %s), and streamed deltas add up to the answer", async (stream) => {
      const events: ModelStreamEvent[] = [];
      const { response } = await run(harness, [{ reply: textReply("The sum is a + b.") }], (provider) =>
        provider.complete(request, stream ? { onEvent: (event) => events.push(event) } : {}),
      );
      expect(answerOf(response?.content)).toEqual([{ type: "text", text: "The sum is a + b." }]);
      expect(response?.stopReason).toBe("end_turn");
      expect(response?.retries).toBe(0);
      if (stream) expect(events.flatMap((event) => (event.type === "text_delta" ? [event.text] : [])).join("")).toBe("The sum is a + b.");
    });

    it.each([false, true])("returns parallel tool calls with their ids and whole inputs (streamed: %s)", async (stream) => {
      const { response } = await run(harness, [{ reply: callsReply }], (provider) =>
        provider.complete(request, stream ? { onEvent: () => {} } : {}),
      );
      expect(response?.stopReason).toBe("tool_use");
      expect(textOf(response?.content ?? [])).toBe("Reading both.");
      expect(toolCallsOf(response?.content ?? [])).toEqual([
        { type: "tool_call", id: "call_a", name: "read_file", input: { path: "src/a.ts" } },
        { type: "tool_call", id: "call_b", name: "read_file", input: { path: "src/b.ts", lines: [1, 20] } },
      ]);
    });

    if (harness.supports.toolCallDeltas)
      it("streams tool arguments as fragments that join into each call's input", async () => {
        const events: ModelStreamEvent[] = [];
        await run(harness, [{ reply: callsReply }], streamed(events));
        const fragments = new Map<string, string>();
        for (const event of events) {
          if (event.type === "tool_call_delta") fragments.set(event.id, (fragments.get(event.id) ?? "") + event.argumentsDelta);
        }
        expect(events.filter((event) => event.type === "tool_call_delta").length).toBeGreaterThan(2);
        expect([...fragments.entries()].map(([id, json]) => [id, JSON.parse(json)])).toEqual([
          ["call_a", { path: "src/a.ts" }],
          ["call_b", { path: "src/b.ts", lines: [1, 20] }],
        ]);
      });

    it.each([false, true])("returns structured output as parsed JSON, not as a call to run (streamed: %s)", async (stream) => {
      const { response } = await run(harness, [{ reply: outputReply }], (provider) =>
        provider.complete(structuredRequest, stream ? { onEvent: () => {} } : {}),
      );
      expect(response?.output).toEqual(verdict);
      expect(response?.stopReason).toBe("end_turn");
      expect(toolCallsOf(response?.content ?? [])).toEqual([]);
    });

    it("reports usage, and prices it when it has a price", async () => {
      const { response } = await run(harness, [{ reply: textReply("ok") }], (provider) => provider.complete(request), { price });
      expect(response?.usage).toMatchObject({ inputTokens: 120, outputTokens: 30, cacheReadTokens: 40, cacheWriteTokens: 0 });
      if (harness.supports.cost) {
        expect(response?.usage.costUsd).toBeCloseTo(costOf(usage, price), 12);
        expect(response?.priceKnown).toBe(true);
      } else {
        expect(response?.priceKnown).not.toBe(false);
      }
    });

    it("reports cache reads and writes apart from uncached input, and prices each", async () => {
      const cached = { inputTokens: 90, outputTokens: 25, cacheReadTokens: 2_000, cacheWriteTokens: 600, costUsd: 0 };
      const { response } = await run(
        harness,
        [{ reply: { ...textReply("ok"), usage: cached } }],
        (provider) => provider.complete(request),
        { price },
      );
      expect(response?.usage).toMatchObject({ inputTokens: 90, outputTokens: 25, cacheReadTokens: 2_000, cacheWriteTokens: 600 });
      if (harness.supports.cost) expect(response?.usage.costUsd).toBeCloseTo(costOf(cached, price), 12);
    });

    it("returns structured output with an optional field the model left out absent, not null", async () => {
      const optional: ModelRequest = {
        ...structuredRequest,
        output: {
          name: "verdict",
          schema: { type: "object", properties: { decision: { type: "string" }, note: { type: "string" } }, required: ["decision"] },
        },
      };
      const left = { decision: "retry" };
      const { response } = await run(
        harness,
        [{ reply: { ...outputReply, content: [{ type: "text", text: JSON.stringify(left) }], output: left } }],
        (provider) => provider.complete(optional),
      );
      expect(response?.output).toEqual(left);
    });

    if (harness.supports.thinking)
      it("streams the model's reasoning as thinking deltas, never as the answer", async () => {
        const events: ModelStreamEvent[] = [];
        const { response } = await run(
          harness,
          [{ reply: { ...textReply("Forty-two."), content: [thinkingOf("Six times seven."), { type: "text", text: "Forty-two." }] } }],
          streamed(events),
        );
        expect(events.flatMap((event) => (event.type === "thinking_delta" ? [event.text] : [])).join("")).toBe("Six times seven.");
        expect(events.flatMap((event) => (event.type === "text_delta" ? [event.text] : [])).join("")).toBe("Forty-two.");
        expect(response?.content[0]).toMatchObject({ type: "thinking", text: "Six times seven." });
      });

    if (harness.supports.thinking)
      it.each([false, true])("hands the reasoning back unmodified across a two-turn tool loop (streamed: %s)", async (stream) => {
        const served = await harness.start([{ reply: reasonedCalls }, { reply: textReply("b.ts is newer.") }]);
        try {
          const options = stream ? { onEvent: () => {} } : {};
          const first = await served.provider.complete(request, options);
          const thinking = first.content.filter((block) => block.type === "thinking");
          expect(thinking).toHaveLength(1);
          expect(thinking[0]).toMatchObject({
            text: "Both files decide it.",
            signature: expect.stringMatching(/.+/),
            producer: { model: served.provider.model },
          });
          const results = toolCallsOf(first.content).map((call) => ({
            type: "tool_result" as const,
            toolCallId: call.id,
            content: `contents of ${call.id}`,
          }));
          const second = await served.provider.complete(
            {
              ...request,
              messages: [...request.messages, { role: "assistant", content: first.content }, { role: "user", content: results }],
            },
            options,
          );
          expect(answerOf(second.content)).toEqual([{ type: "text", text: "b.ts is newer." }]);
          expect(served.requestCount()).toBe(2);
        } finally {
          await served.close();
        }
      });

    if (harness.supports.promptCache)
      it("marks its stable prefix for caching, so a repeated prompt reads what the first wrote, each priced", async () => {
        const long: ModelRequest = {
          ...request,
          system: "You are the worker. Keep to the step's contract and cite the evidence you used. ".repeat(80),
        };
        const served = await harness.start(
          [
            { reply: textReply("one"), measuredUsage: true },
            { reply: textReply("two"), measuredUsage: true },
          ],
          { price },
        );
        try {
          const first = await served.provider.complete(long);
          const second = await served.provider.complete(long);
          expect(first.usage.cacheWriteTokens).toBeGreaterThan(0);
          expect(second.usage.cacheReadTokens).toBe(first.usage.cacheWriteTokens);
          expect(second.usage.costUsd).toBeCloseTo(costOf(second.usage, price), 12);
          expect(second.usage.costUsd).toBeLessThan(first.usage.costUsd);
        } finally {
          await served.close();
        }
      });

    if (harness.supports.cost)
      it("says when it has no price, rather than reporting a free call", async () => {
        const { response } = await run(harness, [{ reply: textReply("ok") }], (provider) => provider.complete(request));
        expect(response?.usage.costUsd).toBe(0);
        expect(response?.priceKnown).toBe(false);
      });

    if (harness.supports.failures)
      describe("failures", () => {
        it.each([
          ["rate_limited", false],
          ["overloaded", false],
          ["server_error", false],
          ["connection_reset", false],
          ["stream_error", true],
        ] as const)("retries %s (streamed: %s) and then answers", async (failure, stream) => {
          const events: ModelStreamEvent[] = [];
          const { response, requests } = await run(harness, [{ fail: failure }, { reply: textReply("recovered") }], (provider) =>
            provider.complete(request, stream ? { onEvent: (event) => events.push(event) } : {}),
          );
          expect(textOf(response?.content ?? [])).toBe("recovered");
          expect(response?.retries).toBe(1);
          expect(requests).toBe(2);
        });

        it.each([
          ["authentication", "authentication"],
          ["invalid_request", "invalid_request"],
          ["quota_exhausted", "quota_exhausted"],
          ["context_length_exceeded", "context_length_exceeded"],
        ] as const)("does not retry %s, and fails with a model_error saying why", async (failure, reason) => {
          const { error, requests } = await run(harness, [{ fail: failure }, { reply: textReply("never") }], (provider) =>
            provider.complete(request),
          );
          expect(ReinError.hasCode(error, "model_error")).toBe(true);
          expect((error as ReinError).retryable).toBe(false);
          expect((error as ReinError).details).toMatchObject({ reason, transient: false });
          expect(requests).toBe(1);
        });

        it("gives up after its retries with one error the queue will not retry again", async () => {
          const { error, requests } = await run(
            harness,
            [{ fail: "overloaded" }, { fail: "overloaded" }, { fail: "overloaded" }],
            (provider) => provider.complete(request),
            { maxRetries: 2 },
          );
          expect(requests).toBe(3);
          expect((error as ReinError).retryable).toBe(false);
          expect((error as ReinError).details).toMatchObject({ retries: 2, transient: true });
        });

        it("retries a cut stream and tells the consumer to discard what it streamed", async () => {
          const events: ModelStreamEvent[] = [];
          const { response } = await run(
            harness,
            [{ cut: textReply("The answer is forty") }, { reply: textReply("Forty-two.") }],
            streamed(events),
          );
          expect(answerOf(response?.content)).toEqual([{ type: "text", text: "Forty-two." }]);
          const retry = events.findIndex((event) => event.type === "retry");
          expect(retry).toBeGreaterThan(0);
          const kept = events.slice(retry + 1).flatMap((event) => (event.type === "text_delta" ? [event.text] : []));
          expect(kept.join("")).toBe("Forty-two.");
        });

        it("never returns a cut stream as an answer, so its tool calls are never run", async () => {
          const { response, error } = await run(harness, [{ cut: callsReply }, { cut: callsReply }, { cut: callsReply }], streamed([]), {
            maxRetries: 2,
          });
          expect(response).toBeUndefined();
          expect(ReinError.hasCode(error, "model_error")).toBe(true);
          expect((error as ReinError).details).toMatchObject({ kind: "stream", retries: 2 });
        });
      });
  });
}
