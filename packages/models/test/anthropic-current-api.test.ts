import { describe, expect, it } from "vitest";
import type { AdapterSettings } from "../src/adapter-settings.ts";
import { AnthropicProvider } from "../src/anthropic/anthropic-provider.ts";
import type { ModelEntry } from "../src/catalogue/model-entry.ts";
import { modelEntryFor } from "../src/catalogue/model-catalogue.ts";
import type { ModelMessage, ModelRequest, ModelStreamEvent } from "../src/model-provider.ts";
import { costOf } from "../src/pricing.ts";
import { ScriptedProvider } from "../src/scripted/scripted-provider.ts";
import { type AnthropicBrain, brainOfProvider, type EmulatedRequest, recordingRetry } from "../src/testing/index.ts";
import { emulatorPerTest } from "./anthropic-emulator-support.ts";

// The adapter as today's Messages API wants it, checked against the strict emulator: every request it sends
// must pass the documented rules (0 refused) and read back today's reply shapes.

const wire = emulatorPerTest();
const sonnet = modelEntryFor("anthropic", "claude-sonnet-5-5");

function settings(overrides: Partial<AdapterSettings> = {}): AdapterSettings {
  return {
    name: "anthropic",
    model: "claude-sonnet-5-5",
    apiKey: "sk-ant-test",
    baseURL: wire.server.baseURL,
    retry: recordingRetry(0).policy,
    ...(sonnet ? { entry: sonnet } : {}),
    ...overrides,
  };
}
const provider = (overrides: Partial<AdapterSettings> = {}) => new AnthropicProvider(settings(overrides));

const sent = () => wire.server.requests.map((request) => request.body);
const sentMessages = (index: number) => (sent()[index]?.messages ?? []) as { content: { type: string }[] }[];
const expectNoneRefused = () => expect(wire.emulator.refusals.map((refusal) => `${refusal.rule}: ${refusal.message}`)).toEqual([]);

const readFile = {
  name: "read_file",
  description: "Reads a file",
  inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};
const request: ModelRequest = {
  role: "worker",
  system: "You are the worker.",
  messages: [{ role: "user", content: [{ type: "text", text: "Compare a.ts and b.ts." }] }],
  tools: [readFile],
};

/** Reasons, notes between calls, reads both files; once it has results, answers. */
const reader: AnthropicBrain = (view) =>
  view.messages.some((message) => message.content.some((block) => block.type === "tool_result"))
    ? {
        content: [
          { type: "thinking", text: "Both read; they differ in one line." },
          { type: "text", text: "They differ in one line." },
        ],
      }
    : {
        content: [
          { type: "thinking", text: "I should read a.ts first." },
          { type: "tool_use", name: "read_file", input: { path: "a.ts" } },
          { type: "thinking", text: "Now b.ts.", progress: true },
          { type: "tool_use", name: "read_file", input: { path: "b.ts" } },
        ],
      };

describe("AnthropicProvider against the Messages API of 2026-10-21", () => {
  it.each([false, true])(
    "asks for adaptive thinking with readable summaries and reads thinking blocks with their signatures (streamed: %s)",
    async (stream) => {
      wire.brain.current = reader;
      const events: ModelStreamEvent[] = [];
      const response = await provider().complete(request, stream ? { onEvent: (event) => events.push(event) } : {});

      expectNoneRefused();
      expect(sent()[0]?.thinking).toEqual({ type: "adaptive", display: "summarized" });
      expect(response.content.map((block) => block.type)).toEqual(["thinking", "tool_call", "thinking", "tool_call"]);
      expect(response.content[0]).toMatchObject({
        type: "thinking",
        text: "I should read a.ts first.",
        signature: expect.stringMatching(/\S{40,}/),
        producer: { api: "anthropic-messages", model: "claude-sonnet-5-5" },
      });
      if (stream) {
        expect(
          events
            .filter((event) => event.type === "thinking_delta")
            .map((event) => event.type === "thinking_delta" && event.text)
            .join(""),
        ).toBe("I should read a.ts first.Now b.ts.");
      }
    },
  );

  it("sends the thinking blocks of a tool loop back unmodified and in place, so the next turn is accepted", async () => {
    wire.brain.current = reader;
    const adapter = provider();
    const first = await adapter.complete(request, { onEvent: () => {} });
    const calls = first.content.flatMap((block) => (block.type === "tool_call" ? [block.id] : []));
    const history: ModelMessage[] = [
      ...request.messages,
      { role: "assistant", content: first.content },
      { role: "user", content: calls.map((id) => ({ type: "tool_result" as const, toolCallId: id, content: "export const a = 1;" })) },
    ];
    let seen: EmulatedRequest | undefined;
    wire.brain.current = (view) => {
      seen = view;
      return reader(view);
    };
    const second = await adapter.complete({ ...request, messages: history });

    expectNoneRefused();
    expect(second.content.map((block) => block.type)).toEqual(["thinking", "text"]);
    expect(sentMessages(1)[1]?.content).toEqual(wire.emulator.exchanges[0]?.content);
    expect(
      seen?.messages[1]?.content.filter((block) => block.type === "thinking").map((block) => block.type === "thinking" && block.text),
    ).toEqual(["I should read a.ts first.", "Now b.ts."]);
  });

  it("leaves out thinking another model produced, which the API would not read", async () => {
    const history: ModelMessage[] = [
      ...request.messages,
      {
        role: "assistant",
        content: [
          {
            type: "thinking",
            text: "Opus reasoning",
            signature: "sig-opus",
            producer: { api: "anthropic-messages", model: "claude-opus-5-5" },
          },
          {
            type: "thinking",
            text: "",
            signature: "enc",
            producer: { api: "openai-responses", model: "gpt-6-sol" },
            item: { id: "rs_1", summary: [] },
          },
          { type: "text", text: "Reading." },
          { type: "tool_call", id: "toolu_x", name: "read_file", input: { path: "a.ts" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", toolCallId: "toolu_x", content: "A" }] },
    ];
    await provider().complete({ ...request, messages: history });
    expectNoneRefused();
    expect(sentMessages(0)[1]?.content.map((block) => block.type)).toEqual(["text", "tool_use"]);
  });

  it("asks for structured output through output_config.format, without forcing a tool, and returns the JSON it writes (https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5#forced-tool-use-is-not-supported)", async () => {
    wire.brain.current = () => ({ content: [{ type: "thinking", text: "Planning." }], output: { steps: ["read", "write"], done: false } });
    const schema = {
      type: "object",
      properties: {
        steps: { type: "array", items: { type: "string", minLength: 1 }, minItems: 1 },
        done: { type: "boolean" },
        note: { type: "string", maxLength: 200 },
      },
      required: ["steps", "done"],
    };
    const response = await provider().complete({ ...request, tools: [], output: { name: "plan", schema } });

    expectNoneRefused();
    expect(sent()[0]?.tool_choice).toBeUndefined();
    expect(sent()[0]?.output_config).toMatchObject({
      format: { type: "json_schema", schema: { type: "object", additionalProperties: false } },
    });
    expect(response.output).toEqual({ steps: ["read", "write"], done: false });
    expect(response.stopReason).toBe("end_turn");
  });

  it("wraps a non-object output schema, as structured output answers an object", async () => {
    wire.brain.current = () => ({ content: [], output: { value: ["a", "b"] } });
    const response = await provider().complete({
      ...request,
      tools: [],
      output: { name: "names", schema: { type: "array", items: { type: "string" } } },
    });
    expectNoneRefused();
    expect(response.output).toEqual(["a", "b"]);
  });

  it("forces a tool only for a model the catalogue says still allows it", async () => {
    const forcing = { ...(sonnet as ModelEntry), id: "claude-sonnet-5", structuredOutput: "forced_tool" as const, forcedToolUse: true };
    wire.brain.current = (view) => ({
      content: [{ type: "tool_use", name: "plan", input: { done: true } }],
      ...(view.tools.length ? {} : { output: {} }),
    });
    const response = await provider({ model: "claude-sonnet-5", entry: forcing }).complete({
      ...request,
      tools: [],
      output: { name: "plan", schema: { type: "object", properties: { done: { type: "boolean" } }, required: ["done"] } },
    });
    expectNoneRefused();
    expect(sent()[0]?.tool_choice).toEqual({ type: "tool", name: "plan" });
    expect(response.output).toEqual({ done: true });
  });

  it("sends effort only where the catalogue lists it, and never a sampling parameter (https://platform.claude.com/docs/en/api/versioning)", async () => {
    await provider({ effort: "medium", temperature: 0.2 }).complete(request);
    await provider({ effort: "none" }).complete(request);
    expectNoneRefused();
    expect(sent()[0]?.output_config).toEqual({ effort: "medium" });
    expect(sent()[0]).not.toHaveProperty("temperature");
    expect(sent()[1]).not.toHaveProperty("output_config");
  });

  it("takes max_tokens from the catalogue and streams when the SDK would refuse to wait that long for a plain reply", async () => {
    await provider().complete(request);
    await provider({ maxTokens: 4096 }).complete(request);
    expectNoneRefused();
    expect(sent().map((body) => [body.max_tokens, body.stream])).toEqual([
      [sonnet?.defaultMaxTokens, true],
      [4096, false],
    ]);
  });

  it("marks the stable prefix for caching, so each turn of a tool loop reads the turns before it, and prices 1-hour writes apart", async () => {
    const longSystem = "You are the worker. Follow the step's contract exactly and cite evidence. ".repeat(40);
    const price = { inputPerMTok: 2, outputPerMTok: 10, cacheReadPerMTok: 0.1, cacheWritePerMTok: 2.5, cacheWriteLongPerMTok: 4 };
    wire.brain.current = reader;
    const adapter = provider({ price });
    const base = { ...request, system: longSystem };
    const first = await adapter.complete(base);
    const body = sent()[0] as {
      tools: { cache_control?: unknown }[];
      system: { cache_control?: unknown }[];
      messages: { content: { cache_control?: unknown }[] }[];
    };
    expect(body.tools.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
    expect(body.system.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
    expect(body.messages.at(-1)?.content.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
    expect(first.usage.cacheWriteTokens).toBeGreaterThan(0);
    expect(first.usage.cacheReadTokens).toBe(0);

    const calls = first.content.flatMap((block) => (block.type === "tool_call" ? [block.id] : []));
    const second = await adapter.complete({
      ...base,
      messages: [
        ...base.messages,
        { role: "assistant", content: first.content },
        { role: "user", content: calls.map((id) => ({ type: "tool_result" as const, toolCallId: id, content: "A" })) },
      ],
    });
    expectNoneRefused();
    expect(second.usage.cacheReadTokens).toBe(first.usage.cacheWriteTokens);
    expect(second.usage.cacheWriteTokens).toBeGreaterThan(0);
    expect(second.usage.costUsd).toBeCloseTo(costOf(second.usage, price), 12);
  });

  it("keeps a model the catalogue does not know working: output_config structured output, no thinking or effort parameter", async () => {
    wire.brain.current = () => ({ content: [], output: { ok: true } });
    const { entry: _known, ...unknown } = settings({ model: "claude-sonnet-5", effort: "high" });
    const response = await new AnthropicProvider(unknown).complete({
      ...request,
      tools: [],
      output: { name: "check", schema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] } },
    });
    expectNoneRefused();
    expect(sent()[0]).not.toHaveProperty("thinking");
    expect(sent()[0]?.output_config).toEqual({ format: expect.objectContaining({ type: "json_schema" }) });
    expect(response.output).toEqual({ ok: true });
  });

  it("plays a scripted worker through the emulator as today's model answers, images in tool results included", async () => {
    const script = {
      worker: [
        {
          match: "Compare",
          turns: [
            { text: "Let me look at a.ts.", toolCalls: [{ id: "toolu_a", name: "read_file", input: { path: "a.ts" } }] },
            { text: "a.ts draws a chart." },
          ],
        },
      ],
    };
    let seen: EmulatedRequest | undefined;
    const scripted = brainOfProvider(new ScriptedProvider(script), "worker");
    wire.brain.current = (view) => {
      seen = view;
      return scripted(view);
    };
    const adapter = provider();
    const events: ModelStreamEvent[] = [];
    const first = await adapter.complete(request, { onEvent: (event) => events.push(event) });
    // Text between tool calls comes back in thinking blocks (https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5).
    expect(first.content.map((block) => (block.type === "thinking" ? `thinking: ${block.text}` : block.type))).toEqual([
      "thinking: I will call read_file next.",
      "thinking: Let me look at a.ts.",
      "tool_call",
    ]);
    expect(
      events
        .filter((event) => event.type === "thinking_delta")
        .map((event) => event.type === "thinking_delta" && event.text)
        .join(""),
    ).toContain("Let me look at a.ts.");
    const image = { mediaType: "image/png", data: "iVBORw0KGgo=" };
    const second = await adapter.complete({
      ...request,
      messages: [
        ...request.messages,
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", toolCallId: "toolu_a", content: "a chart", images: [image] }] },
      ],
    });
    expectNoneRefused();
    expect(second.content).toEqual([{ type: "text", text: "a.ts draws a chart." }]);
    expect(seen?.messages.at(-1)?.content).toEqual([{ type: "tool_result", toolCallId: "toolu_a", content: "a chart", images: [image] }]);
  });
});
