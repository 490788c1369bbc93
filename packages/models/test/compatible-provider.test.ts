import { describe, expect, it } from "vitest";
import type { ModelRequest, ModelStreamEvent } from "../src/model-provider.ts";
import { OpenAIProvider } from "../src/openai/openai-provider.ts";
import { fakeWirePerTest, fixture, jsonFixture } from "./fixtures.ts";

const baseRequest: ModelRequest = {
  role: "worker",
  system: "You are the worker.",
  messages: [{ role: "user", content: [{ type: "text", text: "Look around." }] }],
};

describe("OpenAIProvider as openai-compatible (Ollama, vLLM, llama.cpp quirks)", () => {
  const wire = fakeWirePerTest(2, "/v1");

  const compatible = (structuredOutput?: "json_schema" | "json_object" | "none") =>
    new OpenAIProvider({
      kind: "openai-compatible",
      name: "local-ollama",
      model: "qwen2.5:7b",
      baseURL: wire.server.baseURL,
      maxTokens: 512,
      retry: wire.retry.policy,
      ...(structuredOutput ? { structuredOutput } : {}),
    });

  it("assembles calls from a stream with missing and repeated indexes, an empty model and stop with calls", async () => {
    wire.server.queue({ sse: fixture("compatible/quirky-tools-stream.sse"), splitEvery: 17 });
    const events: ModelStreamEvent[] = [];
    const response = await compatible().complete(baseRequest, { onEvent: (event) => events.push(event) });

    expect(wire.server.requests[0]?.body).toMatchObject({ model: "qwen2.5:7b", max_tokens: 512, stream: true });
    expect(wire.server.requests[0]?.body.max_completion_tokens).toBeUndefined();
    expect(response.content).toEqual([
      { type: "text", text: "Let me look." },
      { type: "tool_call", id: "call_x", name: "read_file", input: { path: "a.ts" } },
      { type: "tool_call", id: "call_y", name: "read_file", input: { path: "b.ts" } },
      { type: "tool_call", id: "call_z", name: "list_dir", input: {} },
    ]);
    expect(response.stopReason).toBe("tool_use");
    expect(response.model).toBe("qwen2.5:7b");
    expect(response.provider).toBe("local-ollama");
    expect(response.usage).toMatchObject({ inputTokens: 0, outputTokens: 0 });
    expect(events[0]).toEqual({ type: "text_delta", text: "Let me look." });
  });

  it("reads `tool_calls: []` as no calls and finds fenced JSON output in prompt-only mode", async () => {
    wire.server.queue({ status: 200, json: jsonFixture("compatible/empty-tool-calls.json") });
    const schema = { type: "object", properties: { verdict: { type: "string" } }, required: ["verdict"] };
    const response = await compatible().complete({ ...baseRequest, output: { name: "verdict", schema } });

    const body = wire.server.requests[0]?.body;
    expect(body?.response_format).toBeUndefined();
    const system = ((body?.messages ?? []) as { role: string; content: string }[])[0];
    expect(system?.role).toBe("system");
    expect(system?.content).toContain("You are the worker.");
    expect(system?.content).toContain(JSON.stringify(schema));
    expect(response.stopReason).toBe("end_turn");
    expect(response.content).toEqual([{ type: "text", text: '```json\n{"verdict": "pass"}\n```' }]);
    expect(response.output).toEqual({ verdict: "pass" });
  });

  it("asks for json_object when configured, and maps finish_reason stop with calls to tool_use", async () => {
    wire.server.queue({ status: 200, json: jsonFixture("compatible/stop-with-calls.json") });
    const response = await compatible("json_object").complete({
      ...baseRequest,
      output: { name: "answer", schema: { type: "object" } },
    });

    expect(wire.server.requests[0]?.body.response_format).toEqual({ type: "json_object" });
    expect(response.stopReason).toBe("tool_use");
    expect(response.content).toEqual([{ type: "tool_call", id: "chatcmpl-tool-9d1", name: "run_command", input: { command: "ls" } }]);
    expect(response.model).toBe("Qwen/Qwen2.5-7B-Instruct");
  });

  it("refuses a function call without a name as a final model error instead of naming no tool", async () => {
    const nameless = { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { arguments: "{}" } }] };
    wire.server.queue({
      status: 200,
      json: {
        id: "chatcmpl-1",
        object: "chat.completion",
        model: "qwen2.5:7b",
        choices: [{ index: 0, message: nameless, finish_reason: "tool_calls" }],
      },
    });
    const error = await compatible()
      .complete(baseRequest)
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: "model_error",
      retryable: false,
      message: expect.stringContaining("the server's tool call 0 is not a function call"),
    });
    expect((error as Error).message).toContain("function.name");
    expect(wire.server.requests).toHaveLength(1);
  });

  it("surfaces Ollama's plain-string error for an unknown model as final, with its words", async () => {
    wire.server.queue({ status: 404, json: { error: 'model "qwen9:1b" not found, try pulling it first' } });
    const error = await compatible()
      .complete(baseRequest)
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "model_error", retryable: false });
    expect((error as Error).message).toMatch(/404/);
    expect((error as Error).message).toMatch(/not found, try pulling it first/);
    expect(wire.server.requests).toHaveLength(1);
  });

  it("reads vLLM's top-level error body and calls a context overflow final", async () => {
    wire.server.queue({
      status: 400,
      json: {
        object: "error",
        message:
          "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4488 in the messages, 512 in the completion).",
        type: "BadRequestError",
        param: null,
        code: 400,
      },
    });
    const error = await compatible()
      .complete(baseRequest)
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "model_error", retryable: false });
    expect((error as Error).message).toMatch(/maximum context length is 4096 tokens/);
  });

  it("retries a vLLM 503 while the engine is loading, then succeeds", async () => {
    wire.server.queue(
      { status: 503, json: { object: "error", message: "The engine is not ready", type: "ServiceUnavailableError", code: 503 } },
      { status: 200, json: jsonFixture("openai/text.json") },
    );
    const response = await compatible().complete(baseRequest);
    expect(response.retries).toBe(1);
  });

  it("retries a connection reset, then succeeds", async () => {
    wire.server.queue({ reset: true }, { status: 200, json: jsonFixture("openai/text.json") });
    const response = await compatible().complete(baseRequest);

    expect(wire.server.requests).toHaveLength(2);
    expect(response.retries).toBe(1);
    expect(wire.retry.waits).toHaveLength(1);
  });
});
