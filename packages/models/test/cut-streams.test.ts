import { describe, expect, it } from "vitest";
import { ReinError } from "@rein/contracts";
import { type ModelRequest, type ModelStreamEvent, toolCallsOf } from "../src/model-provider.ts";
import { OpenAIProvider } from "../src/openai/openai-provider.ts";
import { recordingRetry } from "../src/testing/index.ts";
import { fakeServerPerTest, providerOnFakeWire, workerRequest } from "./fixtures.ts";

const request: ModelRequest = {
  ...workerRequest,
  tools: [
    { name: "delete_branch", description: "Deletes a branch", inputSchema: { type: "object", properties: { name: { type: "string" } } } },
  ],
};

const head = { id: "chatcmpl-c", object: "chat.completion.chunk", created: 1, model: "qwen-test" };
const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const usageChunk = `data: ${JSON.stringify({ ...head, choices: [], usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 } })}\n\n`;
const done = "data: [DONE]\n\n";

const complete = (text: string) => chunk({ role: "assistant", content: text }) + chunk({}, "stop") + usageChunk + done;
/** A whole, valid tool call whose stream then closes with neither a finish reason nor usage. */
const cutAfterCall =
  chunk({ role: "assistant", content: null }) +
  chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "delete_branch", arguments: '{"name":"main"}' } }] });

describe.each(["openai", "openai-compatible"] as const)("a %s stream that ends badly", (kind) => {
  const wire = providerOnFakeWire(
    2,
    "/v1",
    ({ server, retry }) => new OpenAIProvider({ name: "local", kind, model: "qwen-test", baseURL: server.baseURL, retry: retry.policy }),
  );

  it("is retried as a stream failure, and the consumer is told to discard the partial text", async () => {
    wire.server.queue({ sse: chunk({ role: "assistant", content: "The answer is" }) }, { sse: complete("Forty-two.") });
    const events: ModelStreamEvent[] = [];
    const response = await wire.provider.complete(request, { onEvent: (event) => events.push(event) });

    expect(response.content).toEqual([{ type: "text", text: "Forty-two." }]);
    expect(response.retries).toBe(1);
    expect(events.map((event) => event.type)).toEqual(["text_delta", "retry", "text_delta"]);
    expect(events[1]).toMatchObject({ type: "retry", attempt: 1, reason: "stream_error" });
  });

  it("never returns a cut reply as an answer, and its tool call is never run", async () => {
    wire.server.queue({ sse: cutAfterCall }, { sse: cutAfterCall }, { sse: cutAfterCall });
    const error = (await wire.provider.complete(request, { onEvent: () => {} }).catch((caught: unknown) => caught)) as ReinError;

    expect(ReinError.hasCode(error, "model_error")).toBe(true);
    expect(error.details).toMatchObject({ kind: "stream", reason: "stream_error", retries: 2 });
    expect(error.message).toContain("cut off");
    expect(wire.server.requests).toHaveLength(3);
  });

  it("accepts a finished stream from a server that ignores include_usage", async () => {
    wire.server.queue({ sse: chunk({ role: "assistant", content: "ok" }) + chunk({}, "stop") + done });
    const response = await wire.provider.complete(request, { onEvent: () => {} });
    expect(response.content).toEqual([{ type: "text", text: "ok" }]);
    expect(response.retries).toBe(0);
  });

  it("does not call a turn tool_use when finish_reason says tool_calls but no call came", async () => {
    wire.server.queue({ sse: chunk({ role: "assistant", content: "Nothing to do." }) + chunk({}, "tool_calls") + usageChunk + done });
    const response = await wire.provider.complete(request, { onEvent: () => {} });
    expect(response.stopReason).not.toBe("tool_use");
    expect(toolCallsOf(response.content)).toEqual([]);
  });
});

describe("a plain (non-streamed) completion without a finish reason", () => {
  const wire = fakeServerPerTest("/v1");

  it("keeps its tool call but marks it incomplete, so the runtime never executes it", async () => {
    const provider = new OpenAIProvider({
      name: "local",
      kind: "openai-compatible",
      model: "m",
      baseURL: wire.server.baseURL,
      retry: recordingRetry(0).policy,
    });
    wire.server.queue({
      status: 200,
      json: {
        ...head,
        object: "chat.completion",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: null,
              tool_calls: [{ id: "call_1", type: "function", function: { name: "delete_branch", arguments: '{"name":"main"}' } }],
            },
            finish_reason: null,
          },
        ],
      },
    });
    const response = await provider.complete(request);
    expect(response.stopReason).not.toBe("tool_use");
    expect(toolCallsOf(response.content)[0]?.incomplete).toMatchObject({ reason: "no_finish_reason" });
  });
});
