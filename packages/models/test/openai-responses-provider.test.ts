import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Price } from "../src/model-config.ts";
import { ReinError, jsonSchemaOf } from "@rein/contracts";
import type { AdapterSettings } from "../src/adapter-settings.ts";
import type { ModelEntry } from "../src/catalogue/model-entry.ts";
import { createProvider } from "../src/create-provider.ts";
import { type ModelMessage, type ModelRequest, type ModelStreamEvent, textOf, toolCallsOf } from "../src/model-provider.ts";
import { OpenAIResponsesProvider } from "../src/openai/responses-provider.ts";
import { costOf } from "../src/pricing.ts";
import { ScriptedProvider } from "../src/scripted/scripted-provider.ts";
import {
  cutStream,
  type FakeServer,
  OpenAIEmulator,
  type OpenAIEmulatorReply,
  openAIBrainOfProvider,
  openAIDocs,
  openAIResponseFailedStream,
  openAIResponsesWireFailure,
  recordingRetry,
} from "../src/testing/index.ts";
import { fixture, workerRequest } from "./fixtures.ts";
import { scriptedEmulator } from "./openai-emulator-support.ts";

const key = "sk-proj-responses-KEY-7f3a";
/** GPT-6 Sol as the catalogue describes it (developers.openai.com/api/docs/guides/latest-model). */
const sol: ModelEntry = {
  id: "gpt-6-sol",
  provider: "openai",
  api: "openai-responses",
  structuredOutput: "json_schema",
  forcedToolUse: true,
  thinking: { mode: "reasoning", efforts: ["none", "low", "medium", "high", "xhigh"], defaultEffort: "medium" },
  sampling: [],
  contextWindow: 1_050_000,
  maxOutputTokens: 128_000,
  defaultMaxTokens: 32_000,
  status: "current",
  source: "test",
};
const readFile = {
  name: "read_file",
  description: "Reads a file",
  inputSchema: { type: "object", properties: { path: { type: "string" }, lines: { type: "integer" } }, required: ["path"] },
};
const thinking = (text: string) => ({
  type: "thinking" as const,
  text,
  signature: "",
  producer: { api: "openai-responses" as const, model: "brain" },
});
const callsReply: OpenAIEmulatorReply = {
  content: [
    thinking("Both files are needed."),
    { type: "tool_call", id: "call_a", name: "read_file", input: { path: "a.ts" } },
    { type: "tool_call", id: "call_b", name: "read_file", input: { path: "b.ts", lines: 20 } },
  ],
};
const textReply = (text: string): OpenAIEmulatorReply => ({ content: [{ type: "text", text }] });

const servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

/** An emulator playing `replies`, and a Responses provider for gpt-6-sol against it. */
async function emulated(replies: OpenAIEmulatorReply[], settings: Partial<AdapterSettings> = {}) {
  const { emulator, seen } = scriptedEmulator(replies, { cacheMinimumTokens: 64 });
  const server = await emulator.start();
  servers.push(server);
  const retry = recordingRetry(2);
  const provider = new OpenAIResponsesProvider({
    name: "openai",
    model: "gpt-6-sol",
    apiKey: key,
    baseURL: server.baseURL,
    entry: sol,
    effort: "high",
    retry: retry.policy,
    ...settings,
  });
  const bodies = () => server.requests.map((request) => request.body);
  const inputAt = (index: number) => (server.requests[index]?.body.input ?? []) as (Record<string, unknown> & { type?: string })[];
  return { emulator, seen, server, provider, bodies, inputAt, retry };
}

const loopRequest: ModelRequest = { ...workerRequest, tools: [readFile] };
const answered = (first: { content: ModelMessage["content"] }): ModelMessage[] => [
  ...loopRequest.messages,
  { role: "assistant", content: first.content },
  {
    role: "user",
    content: toolCallsOf(first.content).map((call) => ({
      type: "tool_result" as const,
      toolCallId: call.id,
      content: `read ${JSON.stringify(call.input)}`,
    })),
  },
];

describe("OpenAIResponsesProvider against the strict Responses emulator", () => {
  it(`asks statelessly: store false, encrypted reasoning included, the role's effort, instructions, and no temperature GPT-6 refuses (${openAIDocs.latestModel})`, async () => {
    const { provider, bodies, emulator } = await emulated([textReply("Done.")], { temperature: 0.3 });
    const response = await provider.complete(workerRequest);

    expect(bodies()[0]).toEqual({
      model: "gpt-6-sol",
      input: [{ role: "user", content: "Do the step." }],
      store: false,
      max_output_tokens: 32_000,
      instructions: "You are the worker.",
      reasoning: { summary: "auto", effort: "high" },
      include: ["reasoning.encrypted_content"],
      stream: false,
    });
    expect(response.content.map((block) => block.type)).toEqual(["thinking", "text"]);
    expect(response.stopReason).toBe("end_turn");
    expect(response.provider).toBe("openai");
    expect(emulator.refusals).toEqual([]);
    expect(emulator.storedResponses).toBe(0);
  });

  it(`sends the role's temperature only while the model does not reason, where the catalogue says it takes one then (${openAIDocs.latestModel})`, async () => {
    const atNone = await emulated([textReply("ok")], {
      effort: "none",
      temperature: 0.3,
      entry: { ...sol, samplingWhenEffortNone: ["temperature", "top_p"] },
    });
    await atNone.provider.complete(workerRequest);
    expect(atNone.bodies()[0]).toMatchObject({ temperature: 0.3, reasoning: { effort: "none" } });
    const reasoning = await emulated([textReply("ok")], {
      effort: "low",
      temperature: 0.3,
      entry: { ...sol, samplingWhenEffortNone: ["temperature", "top_p"] },
    });
    await reasoning.provider.complete(workerRequest);
    expect(reasoning.bodies()[0]?.temperature).toBeUndefined();
    expect([atNone.emulator.refusals, reasoning.emulator.refusals]).toEqual([[], []]);
  });

  it("sends only an effort the catalogue lists for the model, so the model's default holds otherwise", async () => {
    const { provider, bodies } = await emulated([textReply("ok")], { effort: "max" });
    await provider.complete(workerRequest);
    expect(bodies()[0]?.reasoning).toEqual({ summary: "auto" });
  });

  it.each([false, true])(
    `carries the reasoning item, byte for byte, across a two-turn tool loop (streamed: %s) (${openAIDocs.reasoning})`,
    async (stream) => {
      const { provider, inputAt, emulator } = await emulated([callsReply, textReply("Both read.")]);
      const events: ModelStreamEvent[] = [];
      const options = stream ? { onEvent: (event: ModelStreamEvent) => events.push(event) } : {};
      const first = await provider.complete(loopRequest, options);
      expect(first.stopReason).toBe("tool_use");
      expect(first.content.map((block) => block.type)).toEqual(["thinking", "tool_call", "tool_call"]);
      const [reasoning] = first.content;
      expect(reasoning).toMatchObject({
        type: "thinking",
        text: "Both files are needed.",
        producer: { api: "openai-responses", model: "gpt-6-sol" },
        item: { summary: ["Both files are needed."] },
      });
      if (stream)
        expect(
          events
            .filter((event) => event.type === "thinking_delta")
            .map((event) => (event.type === "thinking_delta" ? event.text : ""))
            .join(""),
        ).toBe("Both files are needed.");

      const second = await provider.complete({ ...loopRequest, messages: answered(first) }, options);
      expect(second.content.at(-1)).toEqual({ type: "text", text: "Both read." });
      const sentBack = inputAt(1).find((item) => item.type === "reasoning");
      const returned = first.content[0] as { signature: string; item: { id: string } };
      expect(sentBack).toEqual({
        type: "reasoning",
        id: returned.item.id,
        summary: [{ type: "summary_text", text: "Both files are needed." }],
        encrypted_content: returned.signature,
      });
      expect(inputAt(1).map((item) => item.type ?? "message")).toEqual([
        "message",
        "reasoning",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
      ]);
      expect(emulator.refusals).toEqual([]);
    },
  );

  it("never hands one model's reasoning to another: a loop begun by another model goes on without it", async () => {
    const { provider, inputAt, emulator, server } = await emulated([callsReply, textReply("ok")]);
    const luna = new OpenAIResponsesProvider({
      name: "openai",
      model: "gpt-6-luna",
      apiKey: key,
      baseURL: server.baseURL,
      entry: { ...sol, id: "gpt-6-luna" },
      retry: recordingRetry(0).policy,
    });
    const first = await luna.complete(loopRequest);
    await provider.complete({ ...loopRequest, messages: answered(first) });
    expect(inputAt(0)).toHaveLength(1);
    expect(inputAt(1).some((item) => item.type === "reasoning")).toBe(false);
    expect(emulator.refusals).toEqual([]);
  });

  it(`asks strict structured output of a schema with an optional field, and returns that field absent, not null (${openAIDocs.structuredOutputs})`, async () => {
    const { provider, bodies, emulator } = await emulated([{ content: [], output: { decision: "continue", reasons: ["tests pass"] } }]);
    const schema = {
      type: "object",
      properties: {
        decision: { type: "string", enum: ["continue", "retry"] },
        reasons: { type: "array", items: { type: "string" } },
        note: { type: "string" },
      },
      required: ["decision", "reasons"],
    };
    const response = await provider.complete({ ...workerRequest, output: { name: "verdict", schema } });

    expect(bodies()[0]?.text).toHaveProperty("format");
    expect((bodies()[0]?.text as { format: unknown } | undefined)?.format).toEqual({
      type: "json_schema",
      name: "verdict",
      strict: true,
      schema: {
        type: "object",
        properties: {
          decision: { type: "string", enum: ["continue", "retry"] },
          reasons: { type: "array", items: { type: "string" } },
          note: { anyOf: [{ type: "string" }, { type: "null" }] },
        },
        required: ["decision", "reasons", "note"],
        additionalProperties: false,
      },
    });
    expect(response.output).toEqual({ decision: "continue", reasons: ["tests pass"] });
    // What is traced and replayed is the content: its text says what the caller got, not the null strict mode wrote.
    expect(textOf(response.content)).toBe(JSON.stringify({ decision: "continue", reasons: ["tests pass"] }));
    expect(emulator.refusals).toEqual([]);
  });

  it("sends a discriminated union (zod's oneOf) strict, as the anyOf it is equivalent to", async () => {
    const check = z.discriminatedUnion("kind", [
      z.object({ kind: z.literal("command"), argv: z.array(z.string()) }),
      z.object({ kind: z.literal("judge"), description: z.string().optional() }),
    ]);
    const schema = jsonSchemaOf(z.object({ checks: z.array(check) }));
    const { provider, bodies, emulator } = await emulated([
      { content: [], output: { checks: [{ kind: "judge" }, { kind: "command", argv: ["npm", "test"] }] } },
    ]);
    const response = await provider.complete({ ...workerRequest, output: { name: "checks", schema } });
    const format = (bodies()[0]?.text as { format: { strict: boolean; schema: unknown } } | undefined)?.format;
    expect(format?.strict).toBe(true);
    expect(JSON.stringify(format?.schema)).not.toContain("oneOf");
    expect(response.output).toEqual({ checks: [{ kind: "judge" }, { kind: "command", argv: ["npm", "test"] }] });
    expect(emulator.refusals).toEqual([]);
  });

  it("falls back to a non-strict format for a schema strict mode cannot take, rather than sending one it refuses", async () => {
    const { provider, bodies, emulator } = await emulated([{ content: [], output: { tags: ["a"] } }]);
    const schema = {
      type: "object",
      properties: { tags: { type: "array", items: { type: "string" }, uniqueItems: true } },
      required: ["tags"],
    };
    const response = await provider.complete({ ...workerRequest, output: { name: "tags", schema } });
    expect((bodies()[0]?.text as { format: unknown } | undefined)?.format).toMatchObject({ strict: false, schema });
    expect(response.output).toEqual({ tags: ["a"] });
    expect(emulator.refusals).toEqual([]);
  });

  it("sends a tool strict only where that changes nothing a call may say: never one with an optional argument", async () => {
    const listDir = {
      name: "list_dir",
      description: "Lists a directory",
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    };
    const { provider, bodies, emulator } = await emulated([
      { content: [{ type: "tool_call", id: "call_1", name: "read_file", input: { path: "a.ts" } }] },
    ]);
    const response = await provider.complete({ ...loopRequest, tools: [readFile, listDir] });
    expect(bodies()[0]?.tools).toEqual([
      { type: "function", name: "read_file", description: "Reads a file", strict: false, parameters: readFile.inputSchema },
      {
        type: "function",
        name: "list_dir",
        description: "Lists a directory",
        strict: true,
        parameters: { ...listDir.inputSchema, additionalProperties: false },
      },
    ]);
    expect(toolCallsOf(response.content)).toEqual([{ type: "tool_call", id: "call_1", name: "read_file", input: { path: "a.ts" } }]);
    expect(emulator.refusals).toEqual([]);
  });

  it(`counts reasoning, cache reads and 12-hour cache writes, and prices them (${openAIDocs.promptCaching})`, async () => {
    const price: Price = { inputPerMTok: 2, outputPerMTok: 10, cacheReadPerMTok: 0.2, cacheWritePerMTok: 2.5, cacheWriteLongPerMTok: 4 };
    const usage = { inputTokens: 300, outputTokens: 90, cacheReadTokens: 1_200, cacheWriteTokens: 500, longCacheWriteTokens: 200 };
    const { provider } = await emulated([{ ...textReply("ok"), usage }], { price });
    const response = await provider.complete(workerRequest);
    expect(response.usage).toMatchObject({ inputTokens: 300, outputTokens: 90, cacheReadTokens: 1_200, cacheWriteTokens: 500 });
    expect(response.usage.costUsd).toBeCloseTo((300 * 2 + 90 * 10 + 1_200 * 0.2 + 300 * 2.5 + 200 * 4) / 1_000_000, 12);
    expect(response.usage.costUsd).toBeCloseTo(costOf(response.usage, price, { longCacheWriteTokens: 200 }), 12);
  });

  it("reads the cache the second turn of a loop reuses, because the history goes back byte-stable", async () => {
    const { provider } = await emulated([callsReply, textReply("done")]);
    const first = await provider.complete({ ...loopRequest, system: "You are the worker. ".repeat(30) });
    const second = await provider.complete({ ...loopRequest, system: "You are the worker. ".repeat(30), messages: answered(first) });
    expect(first.usage.cacheWriteTokens).toBeGreaterThan(0);
    expect(second.usage.cacheReadTokens).toBeGreaterThanOrEqual(first.usage.cacheWriteTokens);
  });

  it.each([false, true])("never makes a call cut by max_output_tokens executable (streamed: %s)", async (stream) => {
    const { provider } = await emulated([{ ...callsReply, stopReason: "max_tokens" }]);
    const response = await provider.complete(loopRequest, stream ? { onEvent: () => {} } : {});
    expect(response.stopReason).toBe("max_tokens");
    const calls = toolCallsOf(response.content);
    expect(calls[0]?.incomplete).toBeUndefined();
    expect(calls[1]?.incomplete).toMatchObject({ reason: "max_tokens" });
  });

  it("reads a documented incomplete stream: the reasoning's whole encrypted content from output_item.done, the cut call incomplete", async () => {
    const { provider, server } = await emulated([]);
    server.queue({ sse: fixture("openai/responses-incomplete-call.sse"), splitEvery: 29 });
    const events: ModelStreamEvent[] = [];
    const response = await provider.complete(loopRequest, { onEvent: (event) => events.push(event) });
    expect(response.stopReason).toBe("max_tokens");
    expect(response.content).toEqual([
      {
        type: "thinking",
        text: "Writing the whole file.",
        signature: "gAAAAABo_encrypted_whole",
        producer: { api: "openai-responses", model: "gpt-6-sol" },
        item: { id: "rs_67c9fdd0a1", summary: ["Writing the whole file."] },
      },
      {
        type: "tool_call",
        id: "call_cut",
        name: "write_file",
        input: {},
        incomplete: { reason: "max_tokens", rawArguments: '{"path": "big.txt", "te' },
      },
    ]);
    expect(events.map((event) => event.type)).toEqual(["thinking_delta", "tool_call_delta"]);
    expect(response.usage).toMatchObject({ inputTokens: 40, outputTokens: 64 });
  });

  it("stops with refusal when the model refuses", async () => {
    const { provider } = await emulated([{ ...textReply("I can't help with that."), stopReason: "refusal" }]);
    const response = await provider.complete(workerRequest);
    expect(response.stopReason).toBe("refusal");
    expect(response.content.at(-1)).toEqual({ type: "text", text: "I can't help with that." });
  });

  describe("failures", () => {
    it("retries a cut stream and never answers with it", async () => {
      const { provider, server } = await emulated([textReply("Forty-two.")]);
      const { emulator: other } = scriptedEmulator([textReply("The answer is forty")]);
      const cut = cutStream(
        await other.respond({
          method: "POST",
          url: "/v1/responses",
          headers: { authorization: "Bearer k" },
          body: { model: "gpt-6-sol", input: "x", stream: true },
        }),
      );
      server.queue(cut);
      const events: ModelStreamEvent[] = [];
      const response = await provider.complete(workerRequest, { onEvent: (event) => events.push(event) });
      expect(response.content.at(-1)).toEqual({ type: "text", text: "Forty-two." });
      expect(response.retries).toBe(1);
      expect(events.find((event) => event.type === "retry")).toMatchObject({ reason: "stream_error" });
    });

    it("retries an error event and a response.failed server error, and fails at once on a failed prompt", async () => {
      const { provider, server, bodies } = await emulated([textReply("recovered"), textReply("again")]);
      server.queue(openAIResponsesWireFailure("stream_error"));
      expect((await provider.complete(workerRequest, { onEvent: () => {} })).retries).toBe(1);
      server.queue(openAIResponseFailedStream({ code: "server_error", message: "The server had an error." }));
      expect((await provider.complete(workerRequest, { onEvent: () => {} })).retries).toBe(1);
      server.queue(openAIResponseFailedStream({ code: "invalid_prompt", message: "Invalid prompt: flagged." }));
      const error = (await provider.complete(workerRequest, { onEvent: () => {} }).catch((caught: unknown) => caught)) as ReinError;
      expect(ReinError.hasCode(error, "model_error")).toBe(true);
      expect(error.retryable).toBe(false);
      expect(error.details).toMatchObject({ reason: "invalid_request", errorCode: "invalid_prompt" });
      expect(bodies()).toHaveLength(5);
    });

    it("keeps the key out of the error when a failed response echoes it", async () => {
      const { provider, server } = await emulated([]);
      const echo = openAIResponseFailedStream({ code: "invalid_prompt", message: `Invalid prompt near ${key}` });
      server.queue(echo);
      const error = (await provider.complete(workerRequest, { onEvent: () => {} }).catch((caught: unknown) => caught)) as ReinError;
      expect(error.message).toContain("[REDACTED]");
      expect(JSON.stringify({ message: error.message, details: error.details, cause: String(error.cause) })).not.toContain(key);
    });

    it("fails at once, saying why, when the API refuses the request", async () => {
      const { provider, emulator } = await emulated([], { model: "gpt-6-astra", effort: "none", entry: { ...sol, id: "gpt-6-astra" } });
      const error = (await provider.complete(workerRequest).catch((caught: unknown) => caught)) as ReinError;
      expect(error.retryable).toBe(false);
      expect(error.details).toMatchObject({ status: 400, reason: "invalid_request", errorCode: "unsupported_value" });
      expect(error.message).toContain("reasoning.effort");
      expect(emulator.refusals).toHaveLength(1);
    });
  });
});

describe("a provider of kind openai speaks the API the catalogue names for its model", () => {
  it.each([
    ["gpt-6-sol", "/v1/responses"],
    ["gpt-4.1", "/v1/chat/completions"],
    ["a-model-the-catalogue-does-not-know", "/v1/chat/completions"],
  ])("%s over %s", async (model, path) => {
    const { emulator } = scriptedEmulator([textReply("ok")]);
    const server = await emulator.start();
    servers.push(server);
    const role = { provider: "gpt", model, timeoutMs: 10_000, contextTokens: 100_000 };
    const provider = createProvider("gpt", { kind: "openai", baseURL: server.baseURL, maxRetries: 0 }, role, { OPENAI_API_KEY: key });
    await provider.complete(workerRequest).catch(() => undefined);
    expect(provider.kind).toBe("openai");
    expect(server.requests.map((request) => request.url)).toEqual([path]);
  });
});

describe("a scripted model played through the Responses emulator (openAIBrainOfProvider)", () => {
  it("runs a whole tool loop with a reasoning item before each call, and nothing refused", async () => {
    const scripted = new ScriptedProvider({
      worker: [{ turns: [{ toolCalls: [{ id: "call_1", name: "read_file", input: { path: "a.ts" } }] }, { text: "a.ts exports sum." }] }],
    });
    const emulator = new OpenAIEmulator({ brain: openAIBrainOfProvider(scripted, "worker") });
    const server = await emulator.start();
    servers.push(server);
    const provider = new OpenAIResponsesProvider({
      name: "openai",
      model: "gpt-6-sol",
      apiKey: key,
      baseURL: server.baseURL,
      entry: sol,
      retry: recordingRetry(0).policy,
    });
    const first = await provider.complete(loopRequest);
    expect(first.content.map((block) => block.type)).toEqual(["thinking", "tool_call"]);
    expect(first.content[0]).toMatchObject({ text: "I will call read_file next." });
    const second = await provider.complete({ ...loopRequest, messages: answered(first) });
    expect(second.content.at(-1)).toEqual({ type: "text", text: "a.ts exports sum." });
    expect(emulator.refusals).toEqual([]);
  });

  it("stops with the abort reason when aborted mid-stream, without retrying", async () => {
    const { provider, server } = await emulated([textReply("one two three four five")]);
    const controller = new AbortController();
    const error = await provider
      .complete(workerRequest, {
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === "text_delta") controller.abort(new Error("run cancelled"));
        },
      })
      .catch((caught: unknown) => caught);
    expect((error as Error).message).toBe("run cancelled");
    expect(server.requests).toHaveLength(1);
  });
});
