import { describe, expect, it } from "vitest";
import { ReinError } from "@rein/contracts";
import { AnthropicProvider } from "../src/anthropic/anthropic-provider.ts";
import type { ModelEntry } from "../src/catalogue/model-entry.ts";
import type { ModelStreamEvent } from "../src/model-provider.ts";
import { fixture, jsonFixture, providerOnFakeWire, workerRequest as baseRequest } from "./fixtures.ts";

const key = "sk-ant-test-DISTINCTIVE-KEY-7f3a9";

describe("AnthropicProvider through @anthropic-ai/sdk", () => {
  const wire = providerOnFakeWire(
    3,
    undefined,
    ({ server, retry }) =>
      new AnthropicProvider({
        name: "anthropic",
        model: "claude-test-1",
        apiKey: key,
        baseURL: server.baseURL,
        maxTokens: 1024,
        retry: retry.policy,
        price: { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 },
      }),
  );

  it("sends system, messages and auth, and reads a plain text reply with cache usage", async () => {
    wire.server.queue({ status: 200, json: jsonFixture("anthropic/text.json"), headers: { "request-id": "req_text_1" } });
    const response = await wire.provider.complete(baseRequest);

    const sent = wire.server.requests[0];
    expect(sent?.url).toBe("/v1/messages");
    expect(sent?.headers.authorization).toBe(`Bearer ${key}`);
    // The system prompt and the history's last block carry cache breakpoints (https://platform.claude.com/docs/en/build-with-claude/prompt-caching).
    expect(sent?.body).toMatchObject({
      model: "claude-test-1",
      max_tokens: 1024,
      system: [{ type: "text", text: "You are the worker.", cache_control: { type: "ephemeral" } }],
      messages: [{ role: "user", content: [{ type: "text", text: "Do the step.", cache_control: { type: "ephemeral" } }] }],
    });
    // API version 2026-10-21 removed sampling parameters, and a model the catalogue does not know gets no thinking parameter.
    expect(sent?.body).not.toHaveProperty("temperature");
    expect(sent?.body).not.toHaveProperty("thinking");
    expect(sent?.body.stream).toBe(false);
    expect(sent?.body.tools).toBeUndefined();

    expect(response.content).toEqual([{ type: "text", text: "Hello! The plan has three steps." }]);
    expect(response.stopReason).toBe("end_turn");
    expect(response.model).toBe("claude-sonnet-4-5-20250929");
    expect(response.requestId).toBe("req_text_1");
    expect(response.retries).toBe(0);
    expect(response.usage).toMatchObject({ inputTokens: 2095, outputTokens: 503, cacheReadTokens: 1800, cacheWriteTokens: 120 });
    const expectedCost = (2095 * 3 + 503 * 15 + 1800 * 0.3 + 120 * 3.75) / 1_000_000;
    expect(response.usage.costUsd).toBeCloseTo(expectedCost, 10);
  });

  it("streams text deltas to onEvent when asked for events", async () => {
    wire.server.queue({ sse: fixture("anthropic/text-stream.sse") });
    const events: ModelStreamEvent[] = [];
    const response = await wire.provider.complete(baseRequest, { onEvent: (event) => events.push(event) });

    expect(wire.server.requests[0]?.body.stream).toBe(true);
    expect(events).toEqual([
      { type: "text_delta", text: "Hello" },
      { type: "text_delta", text: ", world" },
    ]);
    expect(response.content).toEqual([{ type: "text", text: "Hello, world" }]);
    expect(response.usage).toMatchObject({ inputTokens: 25, outputTokens: 15, cacheReadTokens: 10 });
  });

  it("assembles tool input split mid-string and mid-escape, parsing it only at block stop", async () => {
    wire.server.queue({ sse: fixture("anthropic/tool-split.sse"), splitEvery: 11 });
    const events: ModelStreamEvent[] = [];
    const response = await wire.provider.complete(
      { ...baseRequest, tools: [{ name: "write_file", description: "Write a file", inputSchema: { type: "object" } }] },
      { onEvent: (event) => events.push(event) },
    );

    expect(wire.server.requests[0]?.body.tools).toEqual([
      { name: "write_file", description: "Write a file", input_schema: { type: "object" }, cache_control: { type: "ephemeral" } },
    ]);
    expect(response.stopReason).toBe("tool_use");
    expect(response.content).toEqual([
      { type: "text", text: "Writing the file." },
      {
        type: "tool_call",
        id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
        name: "write_file",
        input: { path: "src/main.ts", text: 'line one\nsaid "hi" é✓' },
      },
    ]);
    const argumentDeltas = events.flatMap((event) => (event.type === "tool_call_delta" ? [event.argumentsDelta] : []));
    expect(argumentDeltas.join("")).toBe('{"path": "src/main.ts", "text": "line one\\nsaid \\"hi\\" \\u00e9\\u2713"}');
  });

  it("reads several calls in one message, a no-argument call included, and sends history with results in one user message", async () => {
    wire.server.queue({ sse: fixture("anthropic/tools-several.sse") });
    const response = await wire.provider.complete(
      {
        ...baseRequest,
        messages: [
          { role: "user", content: [{ type: "text", text: "Compare a and b." }] },
          {
            role: "assistant",
            content: [
              { type: "text", text: "Reading both." },
              { type: "tool_call", id: "toolu_1", name: "read_file", input: { path: "a.ts" } },
              { type: "tool_call", id: "toolu_2", name: "read_file", input: { path: "b.ts" } },
            ],
          },
          { role: "user", content: [{ type: "tool_result", toolCallId: "toolu_1", content: "A" }] },
          { role: "user", content: [{ type: "tool_result", toolCallId: "toolu_2", content: "no such file", isError: true }] },
          { role: "user", content: [{ type: "text", text: "Go on." }] },
        ],
      },
      { onEvent: () => {} },
    );

    expect(wire.server.requests[0]?.body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Compare a and b." }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Reading both." },
          { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.ts" } },
          { type: "tool_use", id: "toolu_2", name: "read_file", input: { path: "b.ts" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "A" },
          { type: "tool_result", tool_use_id: "toolu_2", content: "no such file", is_error: true },
          { type: "text", text: "Go on.", cache_control: { type: "ephemeral" } },
        ],
      },
    ]);
    expect(response.content).toEqual([
      { type: "tool_call", id: "toolu_A", name: "read_file", input: { path: "a.ts" } },
      { type: "tool_call", id: "toolu_B", name: "read_file", input: { path: "b.ts" } },
      { type: "tool_call", id: "toolu_C", name: "list_dir", input: {} },
    ]);
  });

  it("marks a tool call cut by max_tokens as incomplete instead of presenting it as valid", async () => {
    wire.server.queue({ sse: fixture("anthropic/max-tokens-mid-tool.sse") });
    const response = await wire.provider.complete(baseRequest, { onEvent: () => {} });

    expect(response.stopReason).toBe("max_tokens");
    expect(response.content).toEqual([
      {
        type: "tool_call",
        id: "toolu_cut",
        name: "write_file",
        input: {},
        incomplete: { reason: "max_tokens", rawArguments: '{"path": "big.txt", "text": "aaaa' },
      },
    ]);
  });

  it("retries a stream that reports overloaded_error after a 200, and reports the retry", async () => {
    wire.server.queue({ sse: fixture("anthropic/overloaded-midstream.sse") }, { sse: fixture("anthropic/text-stream.sse") });
    const events: ModelStreamEvent[] = [];
    const response = await wire.provider.complete(baseRequest, { onEvent: (event) => events.push(event) });

    expect(wire.server.requests).toHaveLength(2);
    expect(response.retries).toBe(1);
    expect(response.content).toEqual([{ type: "text", text: "Hello, world" }]);
    expect(events.filter((event) => event.type === "retry")).toEqual([{ type: "retry", attempt: 1, delayMs: 250, reason: "overloaded" }]);
  });

  it("retries 529 overloaded with jittered backoff", async () => {
    wire.server.queue(
      { status: 529, json: jsonFixture("anthropic/error-overloaded.json") },
      { status: 529, json: jsonFixture("anthropic/error-overloaded.json") },
      { status: 200, json: jsonFixture("anthropic/text.json") },
    );
    const response = await wire.provider.complete(baseRequest);

    expect(response.retries).toBe(2);
    // random() = 0.5 of 500 ms, then of 1000 ms.
    expect(wire.retry.waits).toEqual([250, 500]);
  });

  it("honours retry-after on a 429 before succeeding", async () => {
    wire.server.queue(
      { status: 429, json: jsonFixture("anthropic/error-rate-limit.json"), headers: { "retry-after": "7" } },
      { status: 200, json: jsonFixture("anthropic/text.json") },
    );
    const response = await wire.provider.complete(baseRequest);

    expect(response.retries).toBe(1);
    expect(wire.retry.waits).toEqual([7000]);
  });

  it("fails at once on a prompt that is too long", async () => {
    wire.server.queue({ status: 400, json: jsonFixture("anthropic/error-prompt-too-long.json"), headers: { "request-id": "req_long" } });
    const error = await wire.provider.complete(baseRequest).catch((caught: unknown) => caught);

    expect(wire.server.requests).toHaveLength(1);
    expect(ReinError.hasCode(error, "model_error")).toBe(true);
    const reinError = error as ReinError;
    expect(reinError.retryable).toBe(false);
    expect(reinError.message).toContain('"anthropic"');
    expect(reinError.message).toContain("HTTP 400");
    expect(reinError.message).toContain("prompt is too long");
    expect(reinError.message).toContain("req_long");
    expect(reinError.details).toMatchObject({
      status: 400,
      reason: "context_length_exceeded",
      errorType: "invalid_request_error",
      requestId: "req_long",
      retries: 0,
    });
  });

  it("fails at once on a 400 and on a 404 unknown model", async () => {
    wire.server.queue(
      { status: 400, json: jsonFixture("anthropic/error-invalid-request.json") },
      { status: 404, json: jsonFixture("anthropic/error-not-found.json") },
    );
    const badRequest = (await wire.provider.complete(baseRequest).catch((caught: unknown) => caught)) as ReinError;
    const notFound = (await wire.provider.complete(baseRequest).catch((caught: unknown) => caught)) as ReinError;

    expect(wire.server.requests).toHaveLength(2);
    expect(badRequest.details).toMatchObject({ status: 400, reason: "invalid_request" });
    expect(notFound.retryable).toBe(false);
    expect(notFound.details).toMatchObject({ status: 404, reason: "not_found" });
    expect(notFound.message).toContain("claude-nonexistent-9");
  });

  it("asks for structured output through output_config.format, a made acceptable schema, not a forced tool (https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5#forced-tool-use-is-not-supported)", async () => {
    wire.server.queue({ status: 200, json: jsonFixture("anthropic/structured-format.json") });
    const schema = {
      type: "object",
      properties: { steps: { type: "array", items: { type: "string" }, minItems: 2 }, done: { type: "boolean" } },
      required: ["steps", "done"],
    };
    const response = await wire.provider.complete({ ...baseRequest, output: { name: "plan", description: "The plan", schema } });

    const sent = wire.server.requests[0]?.body;
    expect(sent?.tool_choice).toBeUndefined();
    expect(sent?.tools).toBeUndefined();
    // transformJSONSchema closes every object and moves unsupported keywords (minItems above 1) into the description.
    expect(sent?.output_config).toEqual({
      format: {
        type: "json_schema",
        schema: {
          type: "object",
          properties: { steps: { type: "array", items: { type: "string" }, description: "{minItems: 2}" }, done: { type: "boolean" } },
          required: ["steps", "done"],
          additionalProperties: false,
        },
      },
    });
    expect(response.output).toEqual({ steps: ["read", "write"], done: false });
    expect(response.stopReason).toBe("end_turn");
    expect(response.content.at(-1)).toEqual({ type: "text", text: '{"steps":["read","write"],"done":false}' });
  });

  it("forces a tool for structured output only where the catalogue says the model allows it, and returns its input as the output", async () => {
    const forcing: ModelEntry = {
      id: "claude-test-1",
      provider: "anthropic",
      api: "anthropic-messages",
      structuredOutput: "forced_tool",
      forcedToolUse: true,
      thinking: { mode: "none", efforts: [] },
      sampling: ["temperature"],
      contextWindow: 200_000,
      maxOutputTokens: 8192,
      defaultMaxTokens: 4096,
      status: "legacy",
      source: "test",
    };
    const provider = new AnthropicProvider({
      name: "anthropic",
      model: "claude-test-1",
      apiKey: key,
      baseURL: wire.server.baseURL,
      maxTokens: 1024,
      entry: forcing,
      retry: wire.retry.policy,
    });
    wire.server.queue({ status: 200, json: jsonFixture("anthropic/structured.json") });
    const schema = {
      type: "object",
      properties: { steps: { type: "array", items: { type: "string" } }, done: { type: "boolean" } },
      required: ["steps", "done"],
    };
    const response = await provider.complete({ ...baseRequest, output: { name: "plan", description: "The plan", schema } });

    expect(wire.server.requests[0]?.body.tool_choice).toEqual({ type: "tool", name: "plan" });
    expect(wire.server.requests[0]?.body.tools).toEqual([
      { name: "plan", description: "The plan", input_schema: schema, cache_control: { type: "ephemeral" } },
    ]);
    expect(response.output).toEqual({ steps: ["read", "write"], done: false });
    expect(response.stopReason).toBe("end_turn");
    expect(response.content).toEqual([{ type: "text", text: '{"steps":["read","write"],"done":false}' }]);
  });

  it("reads thinking and redacted_thinking blocks with their signatures, tied to the model asked, and 1-hour cache writes apart (https://platform.claude.com/docs/en/build-with-claude/thinking)", async () => {
    wire.server.queue({ status: 200, json: jsonFixture("anthropic/thinking-redacted.json") });
    const price = { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75, cacheWriteLongPerMTok: 6 };
    const provider = new AnthropicProvider({
      name: "anthropic",
      model: "claude-test-1",
      apiKey: key,
      baseURL: wire.server.baseURL,
      maxTokens: 1024,
      retry: wire.retry.policy,
      price,
    });
    const response = await provider.complete(baseRequest);

    const producer = { api: "anthropic-messages", model: "claude-test-1" };
    expect(response.content).toEqual([
      { type: "thinking", text: "Let me break this down. The question has two parts.", signature: "WaUjzkypQ2mUEVM36O2Txu", producer },
      {
        type: "thinking",
        text: "",
        signature: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP",
        producer,
        redacted: true,
      },
      { type: "text", text: "Based on my analysis, read a.ts first." },
      { type: "tool_call", id: "toolu_01D7FLrfh4GYq7yT1ULFeyMV", name: "read_file", input: { path: "a.ts" } },
    ]);
    expect(response.usage).toMatchObject({ inputTokens: 50, cacheReadTokens: 1800, cacheWriteTokens: 248 });
    const expectedCost = (50 * 3 + 503 * 15 + 1800 * 0.3 + 148 * 3.75 + 100 * 6) / 1_000_000;
    expect(response.usage.costUsd).toBeCloseTo(expectedCost, 10);
  });

  it("streams thinking as thinking_delta events and keeps only signed thinking blocks (https://platform.claude.com/docs/en/build-with-claude/streaming)", async () => {
    wire.server.queue({ sse: fixture("anthropic/thinking-stream.sse"), splitEvery: 13 });
    const events: ModelStreamEvent[] = [];
    const response = await wire.provider.complete(baseRequest, { onEvent: (event) => events.push(event) });

    expect(events.filter((event) => event.type === "thinking_delta")).toEqual([
      { type: "thinking_delta", text: "I need to find the GCD of 1071 and 462.\n\n1071 = 2 × 462 + 147" },
      { type: "thinking_delta", text: "\n462 = 3 × 147 + 21" },
      { type: "thinking_delta", text: "This part of the response was interrupted" },
    ]);
    expect(events.filter((event) => event.type === "text_delta")).toEqual([{ type: "text_delta", text: "The GCD is 21." }]);
    expect(response.stopReason).toBe("max_tokens");
    expect(response.content).toEqual([
      {
        type: "thinking",
        text: "I need to find the GCD of 1071 and 462.\n\n1071 = 2 × 462 + 147\n462 = 3 × 147 + 21",
        signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b",
        producer: { api: "anthropic-messages", model: "claude-test-1" },
      },
      { type: "text", text: "The GCD is 21." },
    ]);
  });

  it("sends a thinking block back unmodified only to the model that produced it", async () => {
    wire.server.queue({ status: 200, json: jsonFixture("anthropic/text.json") });
    const mine = { api: "anthropic-messages" as const, model: "claude-test-1" };
    await wire.provider.complete({
      ...baseRequest,
      messages: [
        ...baseRequest.messages,
        {
          role: "assistant",
          content: [
            { type: "thinking", text: "Mine.", signature: "sig-mine", producer: mine },
            { type: "thinking", text: "", signature: "data-mine", producer: mine, redacted: true },
            {
              type: "thinking",
              text: "Another model's.",
              signature: "sig-other",
              producer: { api: "anthropic-messages", model: "claude-opus-5-5" },
            },
            { type: "thinking", text: "Cut before its signature.", signature: "", producer: mine },
            { type: "tool_call", id: "toolu_1", name: "read_file", input: { path: "a.ts" } },
          ],
        },
        { role: "user", content: [{ type: "tool_result", toolCallId: "toolu_1", content: "A" }] },
      ],
    });
    const messages = (wire.server.requests[0]?.body.messages ?? []) as { content: unknown[] }[];
    expect(messages[1]?.content).toEqual([
      { type: "thinking", thinking: "Mine.", signature: "sig-mine" },
      { type: "redacted_thinking", data: "data-mine" },
      { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.ts" } },
    ]);
  });
});
