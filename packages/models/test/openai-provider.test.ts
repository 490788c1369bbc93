import { afterEach, describe, expect, it } from "vitest";
import type { ReinError } from "@rein/contracts";
import type { ModelEntry } from "../src/catalogue/model-entry.ts";
import type { ModelStreamEvent } from "../src/model-provider.ts";
import { OpenAIProvider, type OpenAIProviderSettings } from "../src/openai/openai-provider.ts";
import { type FakeServer, type OpenAIEmulatorReply, openAIDocs, recordingRetry } from "../src/testing/index.ts";
import { fixture, jsonFixture, providerOnFakeWire, workerRequest as baseRequest } from "./fixtures.ts";
import { scriptedEmulator } from "./openai-emulator-support.ts";

const key = "sk-proj-test-DISTINCTIVE-KEY-91c2e";

const readFileTool = {
  name: "read_file",
  description: "Read a file",
  inputSchema: { type: "object", properties: { path: { type: "string" } } },
};

describe("OpenAIProvider through the openai SDK", () => {
  const wire = providerOnFakeWire(
    3,
    "/v1",
    ({ server, retry }) =>
      new OpenAIProvider({
        name: "openai",
        model: "gpt-4.1",
        apiKey: key,
        baseURL: server.baseURL,
        maxTokens: 2048,
        temperature: 0.2,
        retry: retry.policy,
        price: { inputPerMTok: 2, outputPerMTok: 8, cacheReadPerMTok: 0.5, cacheWritePerMTok: 0 },
      }),
  );

  it("sends the system prompt and limits, and reads text with cached-token usage", async () => {
    wire.server.queue({ status: 200, json: jsonFixture("openai/text.json"), headers: { "x-request-id": "req_oa_1" } });
    const response = await wire.provider.complete(baseRequest);

    const sent = wire.server.requests[0];
    expect(sent?.url).toBe("/v1/chat/completions");
    expect(sent?.headers.authorization).toBe(`Bearer ${key}`);
    expect(sent?.body).toEqual({
      model: "gpt-4.1",
      messages: [
        { role: "system", content: "You are the worker." },
        { role: "user", content: "Do the step." },
      ],
      max_completion_tokens: 2048,
      temperature: 0.2,
      stream: false,
    });
    expect(response.content).toEqual([{ type: "text", text: "Hello! The plan has three steps." }]);
    expect(response.stopReason).toBe("end_turn");
    expect(response.requestId).toBe("req_oa_1");
    expect(response.usage).toMatchObject({ inputTokens: 176, outputTokens: 40, cacheReadTokens: 1024 });
    expect(response.usage.costUsd).toBeCloseTo((176 * 2 + 40 * 8 + 1024 * 0.5) / 1_000_000, 10);
  });

  it("reads parallel calls with content null, and sends tools and tool results matched by id", async () => {
    wire.server.queue({ status: 200, json: jsonFixture("openai/parallel-tools.json") });
    const response = await wire.provider.complete({
      ...baseRequest,
      tools: [readFileTool],
      messages: [
        { role: "user", content: [{ type: "text", text: "Compare." }] },
        {
          role: "assistant",
          content: [
            { type: "tool_call", id: "call_1", name: "read_file", input: { path: "a.ts" } },
            { type: "tool_call", id: "call_2", name: "read_file", input: { path: "b.ts" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", toolCallId: "call_1", content: "A" },
            { type: "tool_result", toolCallId: "call_2", content: "missing", isError: true },
          ],
        },
      ],
    });

    const body = wire.server.requests[0]?.body;
    expect(body?.tools).toEqual([
      { type: "function", function: { name: "read_file", description: "Read a file", parameters: readFileTool.inputSchema } },
    ]);
    expect(body?.messages).toEqual([
      { role: "system", content: "You are the worker." },
      { role: "user", content: "Compare." },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } },
          { id: "call_2", type: "function", function: { name: "read_file", arguments: '{"path":"b.ts"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "A" },
      { role: "tool", tool_call_id: "call_2", content: "ERROR: missing" },
    ]);
    expect(response.stopReason).toBe("tool_use");
    expect(response.content).toEqual([
      { type: "tool_call", id: "call_a1", name: "read_file", input: { path: "a.ts" } },
      { type: "tool_call", id: "call_b2", name: "read_file", input: { path: "b.ts" } },
    ]);
  });

  it("streams parallel calls with arguments split mid-escape and reads the usage-only final chunk", async () => {
    wire.server.queue({ sse: fixture("openai/parallel-tools-stream.sse"), splitEvery: 13 });
    const events: ModelStreamEvent[] = [];
    const response = await wire.provider.complete({ ...baseRequest, tools: [readFileTool] }, { onEvent: (event) => events.push(event) });

    expect(wire.server.requests[0]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(response.content).toEqual([
      { type: "tool_call", id: "call_w1", name: "write_file", input: { path: "src/main.ts", text: 'line one\nsaid "hi" é✓' } },
      { type: "tool_call", id: "call_l2", name: "list_dir", input: {} },
    ]);
    expect(response.stopReason).toBe("tool_use");
    expect(response.usage).toMatchObject({ inputTokens: 172, outputTokens: 45, cacheReadTokens: 128 });
    expect(events.every((event) => event.type === "tool_call_delta")).toBe(true);
    expect(events.map((event) => (event.type === "tool_call_delta" ? event.id : "")).filter((id) => id === "call_w1")).toHaveLength(4);
  });

  it("streams text deltas", async () => {
    wire.server.queue({ sse: fixture("openai/text-stream.sse") });
    const events: ModelStreamEvent[] = [];
    const response = await wire.provider.complete(baseRequest, { onEvent: (event) => events.push(event) });

    expect(events).toEqual([
      { type: "text_delta", text: "Hello" },
      { type: "text_delta", text: ", world" },
    ]);
    expect(response.content).toEqual([{ type: "text", text: "Hello, world" }]);
    expect(response.usage).toMatchObject({ inputTokens: 20, outputTokens: 4 });
  });

  it("marks a call cut by finish_reason length as incomplete", async () => {
    wire.server.queue({ sse: fixture("openai/length-mid-tool.sse") });
    const response = await wire.provider.complete(baseRequest, { onEvent: () => {} });

    expect(response.stopReason).toBe("max_tokens");
    expect(response.content).toEqual([
      {
        type: "tool_call",
        id: "call_cut",
        name: "write_file",
        input: {},
        incomplete: { reason: "max_tokens", rawArguments: '{"path": "big.txt", "te' },
      },
    ]);
  });

  it("retries a stream chunk that carries an error after a 200", async () => {
    wire.server.queue({ sse: fixture("openai/error-midstream.sse") }, { sse: fixture("openai/text-stream.sse") });
    const events: ModelStreamEvent[] = [];
    const response = await wire.provider.complete(baseRequest, { onEvent: (event) => events.push(event) });

    expect(wire.server.requests).toHaveLength(2);
    expect(response.retries).toBe(1);
    expect(events).toContainEqual({ type: "retry", attempt: 1, delayMs: 250, reason: "stream_error" });
    expect(response.content).toEqual([{ type: "text", text: "Hello, world" }]);
  });

  it("honours retry-after-ms on a rate-limit 429", async () => {
    wire.server.queue(
      { status: 429, json: jsonFixture("openai/error-rate-limit.json"), headers: { "retry-after-ms": "1500", "retry-after": "2" } },
      { status: 200, json: jsonFixture("openai/text.json") },
    );
    const response = await wire.provider.complete(baseRequest);

    expect(response.retries).toBe(1);
    expect(wire.retry.waits).toEqual([1500]);
  });

  it("honours retry-after given as an HTTP date", async () => {
    wire.server.queue(
      { status: 503, json: jsonFixture("openai/error-server.json"), headers: { "retry-after": "Wed, 01 Jan 2025 00:00:03 GMT" } },
      { status: 200, json: jsonFixture("openai/text.json") },
    );
    await wire.provider.complete(baseRequest);

    expect(wire.retry.waits).toEqual([3000]);
  });

  it("does not retry a 429 that says the quota is spent", async () => {
    wire.server.queue({ status: 429, json: jsonFixture("openai/error-quota.json") });
    const error = (await wire.provider.complete(baseRequest).catch((caught: unknown) => caught)) as ReinError;

    expect(wire.server.requests).toHaveLength(1);
    expect(error.code).toBe("model_error");
    expect(error.retryable).toBe(false);
    expect(error.details).toMatchObject({ status: 429, reason: "quota_exhausted", errorCode: "insufficient_quota" });
  });

  it("fails at once when the context length is exceeded and when the model is unknown", async () => {
    wire.server.queue(
      { status: 400, json: jsonFixture("openai/error-context-length.json") },
      { status: 404, json: jsonFixture("openai/error-model-not-found.json"), headers: { "x-request-id": "req_404" } },
    );
    const tooLong = (await wire.provider.complete(baseRequest).catch((caught: unknown) => caught)) as ReinError;
    const unknown = (await wire.provider.complete(baseRequest).catch((caught: unknown) => caught)) as ReinError;

    expect(wire.server.requests).toHaveLength(2);
    expect(tooLong.details).toMatchObject({ reason: "context_length_exceeded", errorCode: "context_length_exceeded" });
    expect(unknown.retryable).toBe(false);
    expect(unknown.details).toMatchObject({ status: 404, reason: "not_found", requestId: "req_404" });
    expect(unknown.message).toContain("gpt-nonexistent");
    expect(unknown.message).toContain("req_404");
  });

  it("gives up after maxRetries on repeated 500s, and the spent budget is not the queue's to retry again", async () => {
    const serverError = { status: 500, json: jsonFixture("openai/error-server.json") };
    wire.server.queue(serverError, serverError, serverError, serverError);
    const error = (await wire.provider.complete(baseRequest).catch((caught: unknown) => caught)) as ReinError;

    expect(wire.server.requests).toHaveLength(4);
    expect(wire.retry.waits).toEqual([250, 500, 1000]);
    expect(error.retryable).toBe(false);
    expect(error.details).toMatchObject({ retries: 3, reason: "server_error", transient: true });
  });

  it("asks for strict json_schema output when the schema allows it, and non-strict otherwise", async () => {
    wire.server.queue(
      { status: 200, json: jsonFixture("openai/structured.json") },
      { status: 200, json: jsonFixture("openai/structured.json") },
    );
    const strictSchema = {
      type: "object",
      properties: { steps: { type: "array", items: { type: "string" } }, done: { type: "boolean" } },
      required: ["steps", "done"],
      additionalProperties: false,
    };
    const looseSchema = { type: "object", properties: { steps: { type: "array" }, done: { type: "boolean" } }, required: ["steps"] };
    const strict = await wire.provider.complete({ ...baseRequest, output: { name: "plan", schema: strictSchema } });
    await wire.provider.complete({ ...baseRequest, output: { name: "the plan!", schema: looseSchema } });

    expect(wire.server.requests[0]?.body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "plan", schema: strictSchema, strict: true },
    });
    expect(wire.server.requests[1]?.body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "the_plan_", schema: looseSchema, strict: false },
    });
    expect(strict.output).toEqual({ steps: ["read", "write"], done: false });
  });

  it("stops with the abort reason and sends nothing once the signal has fired", async () => {
    const controller = new AbortController();
    controller.abort(new Error("run cancelled"));
    await expect(wire.provider.complete(baseRequest, { signal: controller.signal })).rejects.toThrow("run cancelled");
    expect(wire.server.requests).toHaveLength(0);
  });

  it("stops with the abort reason when aborted mid-stream, without retrying", async () => {
    const controller = new AbortController();
    wire.server.queue({ sse: fixture("openai/text-stream.sse") }, { sse: fixture("openai/text-stream.sse") });
    const error = await wire.provider
      .complete(baseRequest, {
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === "text_delta") controller.abort(new Error("run cancelled"));
        },
      })
      .catch((caught: unknown) => caught);
    expect((error as Error).message).toBe("run cancelled");
    expect(wire.server.requests).toHaveLength(1);
  });
});

describe("OpenAIProvider for OpenAI models the catalogue routes to Chat Completions, against the strict emulator", () => {
  const servers: FakeServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop()));
  });
  const legacy: ModelEntry = {
    id: "gpt-4.1",
    provider: "openai",
    api: "openai-chat",
    structuredOutput: "json_schema",
    forcedToolUse: true,
    thinking: { mode: "none", efforts: [] },
    sampling: ["temperature", "top_p"],
    contextWindow: 1_047_576,
    maxOutputTokens: 32_768,
    defaultMaxTokens: 8_192,
    status: "legacy",
    source: "test",
  };
  /** A reasoning model served over Chat Completions (GPT-6 Sol takes function tools there only at effort none, Using GPT-6). */
  const solOnChat: ModelEntry = {
    ...legacy,
    id: "gpt-6-sol",
    thinking: { mode: "reasoning", efforts: ["none", "low", "medium", "high", "xhigh"], defaultEffort: "medium" },
    sampling: [],
  };

  async function onEmulator(replies: OpenAIEmulatorReply[], settings: Partial<OpenAIProviderSettings>) {
    const { emulator } = scriptedEmulator(replies);
    const server = await emulator.start();
    servers.push(server);
    const provider = new OpenAIProvider({
      name: "openai",
      model: "gpt-4.1",
      apiKey: key,
      baseURL: server.baseURL,
      entry: legacy,
      retry: recordingRetry(0).policy,
      ...settings,
    });
    return { emulator, provider, body: (index: number) => server.requests[index]?.body };
  }

  it(`counts cache writes as Chat Completions reports them, apart from cache reads, and prices them (${openAIDocs.promptCaching})`, async () => {
    const price = { inputPerMTok: 2, outputPerMTok: 8, cacheReadPerMTok: 0.5, cacheWritePerMTok: 2.5 };
    const usage = { inputTokens: 100, outputTokens: 20, cacheReadTokens: 1_024, cacheWriteTokens: 300 };
    const { provider } = await onEmulator([{ content: [{ type: "text", text: "ok" }], usage }], { price });
    const response = await provider.complete(baseRequest);
    expect(response.usage).toMatchObject(usage);
    expect(response.usage.costUsd).toBeCloseTo((100 * 2 + 20 * 8 + 1_024 * 0.5 + 300 * 2.5) / 1_000_000, 12);
  });

  it(`sends reasoning_effort only where the catalogue lists it, so tools work at effort none (${openAIDocs.latestModel})`, async () => {
    const call: OpenAIEmulatorReply = { content: [{ type: "tool_call", id: "call_1", name: "read_file", input: { path: "a.ts" } }] };
    const { provider, body, emulator } = await onEmulator([call], {
      model: "gpt-6-sol",
      entry: solOnChat,
      effort: "none",
      temperature: 0.2,
    });
    const response = await provider.complete({ ...baseRequest, tools: [readFileTool] });
    expect(body(0)).toMatchObject({ reasoning_effort: "none", max_completion_tokens: 8_192 });
    expect(body(0)?.temperature).toBeUndefined();
    expect(response.stopReason).toBe("tool_use");
    expect(emulator.refusals).toEqual([]);

    const unlisted = await onEmulator([{ content: [{ type: "text", text: "ok" }] }], { effort: "high", temperature: 0.2 });
    await unlisted.provider.complete(baseRequest);
    expect(unlisted.body(0)?.reasoning_effort).toBeUndefined();
    expect(unlisted.body(0)?.temperature).toBe(0.2);
  });

  it("never sends a reasoning effort to a compatible server, which the catalogue does not describe", async () => {
    const { provider, body } = await onEmulator([{ content: [{ type: "text", text: "ok" }] }], {
      kind: "openai-compatible",
      entry: solOnChat,
      effort: "low",
    });
    await provider.complete(baseRequest).catch(() => undefined);
    expect(body(0)?.reasoning_effort).toBeUndefined();
  });
});
