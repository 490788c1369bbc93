import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import type { AnthropicBrain, EmulatedRequest } from "../src/testing/index.ts";
import { emulatorPerTest, minimal, post } from "./anthropic-emulator-support.ts";

// The emulator answers in today's shapes (thinking before tool calls, signed; the documented event stream;
// usage from the cache breakpoints it saw) and holds thinking blocks to what it signed.

const wire = emulatorPerTest();
const client = () => new Anthropic({ apiKey: "sk-ant-emulator", baseURL: wire.server.baseURL, maxRetries: 0 });

const readFile = {
  name: "read_file",
  description: "Reads a file",
  input_schema: { type: "object" as const, properties: { path: { type: "string" } }, required: ["path"] },
};
const question = { role: "user" as const, content: "Compare a.ts and b.ts." };

/** Thinks, notes, then reads a.ts; once it has a result, answers. */
const reader: AnthropicBrain = (request) =>
  request.messages.some((message) => message.content.some((block) => block.type === "tool_result"))
    ? { content: [{ type: "text", text: "They differ." }] }
    : {
        content: [
          { type: "thinking", text: "I should read a.ts first." },
          { type: "tool_use", name: "read_file", input: { path: "a.ts" } },
          { type: "thinking", text: "Now b.ts.", progress: true },
          { type: "tool_use", name: "read_file", input: { path: "b.ts" } },
        ],
      };

async function firstTurn(display?: "summarized" | "omitted") {
  wire.brain.current = reader;
  return client().messages.create({
    model: "claude-sonnet-5-5",
    max_tokens: 4096,
    ...(display ? { thinking: { type: "adaptive", display } } : {}),
    tools: [readFile],
    messages: [question],
  });
}

function secondTurn(assistant: Anthropic.ContentBlockParam[], extra: Partial<Anthropic.MessageCreateParamsNonStreaming> = {}) {
  const ids = assistant.flatMap((block) => (block.type === "tool_use" ? [block.id] : []));
  return post(wire.server, {
    model: "claude-sonnet-5-5",
    max_tokens: 4096,
    tools: [readFile],
    messages: [
      question,
      { role: "assistant", content: assistant },
      { role: "user", content: ids.map((id) => ({ type: "tool_result", tool_use_id: id, content: "…" })) },
    ],
    ...extra,
  });
}

describe("replies in today's shapes (https://platform.claude.com/docs/en/build-with-claude/thinking)", () => {
  it("thinks before its tool calls with a signed block, and returns text between calls in a thinking block", async () => {
    const message = await firstTurn("summarized");
    expect(message.content.map((block) => block.type)).toEqual(["thinking", "tool_use", "thinking", "tool_use"]);
    expect(message.content[0]).toMatchObject({
      type: "thinking",
      thinking: "I should read a.ts first.",
      signature: expect.stringMatching(/\S{40,}/),
    });
    expect(message.content[2]).toMatchObject({ type: "thinking", thinking: "Now b.ts." });
    expect(message.stop_reason).toBe("tool_use");
  });

  it('returns thinking blocks with empty text at the default display, "omitted" on claude-sonnet-5-5 (https://platform.claude.com/docs/en/models/sonnet-5-5/migration-guide)', async () => {
    const message = await firstTurn();
    expect(
      message.content.filter((block) => block.type === "thinking").map((block) => block.type === "thinking" && block.thinking),
    ).toEqual(["", ""]);
  });

  it("leaves only the progress updates, with their text, under between_tools (https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5#turn-off-up-front-thinking)", async () => {
    wire.brain.current = reader;
    const message = await client().messages.create({
      model: "claude-sonnet-5-5",
      max_tokens: 4096,
      thinking: { type: "between_tools" },
      tools: [readFile],
      messages: [question],
    });
    expect(message.content.map((block) => (block.type === "thinking" ? `thinking: ${block.thinking}` : block.type))).toEqual([
      "tool_use",
      "thinking: Now b.ts.",
      "tool_use",
    ]);
  });

  it("streams the documented event sequence (https://platform.claude.com/docs/en/build-with-claude/streaming)", async () => {
    wire.brain.current = reader;
    const stream = await client().messages.create({
      model: "claude-sonnet-5-5",
      max_tokens: 4096,
      thinking: { type: "adaptive", display: "summarized" },
      tools: [readFile],
      messages: [question],
      stream: true,
    });
    const seen: string[] = [];
    for await (const event of stream) {
      const kind =
        event.type === "content_block_delta"
          ? event.delta.type
          : event.type === "content_block_start"
            ? `start:${event.content_block.type}`
            : event.type;
      if (seen.at(-1) !== kind) seen.push(kind);
    }
    expect(seen).toEqual([
      "message_start",
      "start:thinking",
      "thinking_delta",
      "signature_delta",
      "content_block_stop",
      "start:tool_use",
      "input_json_delta",
      "content_block_stop",
      "start:thinking",
      "thinking_delta",
      "signature_delta",
      "content_block_stop",
      "start:tool_use",
      "input_json_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
  });

  it("returns structured output as one text block of JSON", async () => {
    wire.brain.current = () => ({ content: [{ type: "thinking", text: "Deciding." }], output: { decision: "continue" } });
    const schema = { type: "object", properties: { decision: { type: "string" } }, required: ["decision"], additionalProperties: false };
    const message = await client().messages.create({
      ...minimal,
      messages: [question],
      output_config: { format: { type: "json_schema", schema } },
    });
    expect(message.content.map((block) => block.type)).toEqual(["thinking", "text"]);
    expect(message.content[1]).toEqual({ type: "text", text: '{"decision":"continue"}' });
  });
});

describe("thinking blocks must come back as they were returned (https://platform.claude.com/docs/en/build-with-claude/thinking#preserving-thinking-blocks)", () => {
  it("accepts the turn passed back unmodified, and the model reads its full thinking even where the text was omitted", async () => {
    const message = await firstTurn();
    let seen: EmulatedRequest | undefined;
    wire.brain.current = (request) => {
      seen = request;
      return { content: [{ type: "text", text: "They differ." }] };
    };
    expect((await secondTurn(message.content as Anthropic.ContentBlockParam[])).status).toBe(200);
    const thinking = seen?.messages[1]?.content.filter((block) => block.type === "thinking");
    expect(thinking?.map((block) => block.type === "thinking" && block.text)).toEqual(["I should read a.ts first.", "Now b.ts."]);
  });

  it("refuses a block whose shown text was changed, and a forged signature", async () => {
    const content = (await firstTurn("summarized")).content as Anthropic.ContentBlockParam[];
    const edited = content.map((block, index) =>
      index === 0 && block.type === "thinking" ? { ...block, thinking: "I should read b.ts first." } : block,
    );
    expect((await secondTurn(edited)).body.error?.message).toBe("messages.1.content.0: Invalid `signature` in `thinking` block");
    const forged = content.map((block) =>
      block.type === "thinking" ? { ...block, signature: `${block.signature.slice(0, -4)}AAAA` } : block,
    );
    expect((await secondTurn(forged)).body.error?.message).toBe("messages.1.content.0: Invalid `signature` in `thinking` block");
  });

  it("refuses the turn's thinking blocks reordered, one of them dropped, or all of them stripped", async () => {
    const content = (await firstTurn("summarized")).content as Anthropic.ContentBlockParam[];
    const [first, call, second, secondCall] = content;
    if (!first || !call || !second || !secondCall) throw new Error("expected four blocks");
    expect(await secondTurn([second, call, first, secondCall])).toMatchObject({ status: 400 });
    expect(wire.emulator.refusals.at(-1)?.rule).toBe("thinking.order");
    await secondTurn([call, second, secondCall]);
    expect(wire.emulator.refusals.at(-1)?.rule).toBe("thinking.order");
    await secondTurn([call, secondCall]);
    expect(wire.emulator.refusals.at(-1)?.rule).toBe("thinking.tool_loop");
  });

  it("accepts a turn with all its thinking removed once the history before it was edited, the documented fix for trimmed history (https://platform.claude.com/docs/en/build-with-claude/preserved-thinking/prefix-checks)", async () => {
    const content = (await firstTurn("summarized")).content as Anthropic.ContentBlockParam[];
    const calls = content.filter((block) => block.type === "tool_use");
    expect((await secondTurn(calls, { system: "You are terse." })).status).toBe(200);
    // Unedited history: the same stripped turn is still refused.
    await secondTurn(calls);
    expect(wire.emulator.refusals.at(-1)?.rule).toBe("thinking.tool_loop");
  });

  it("refuses a block replayed after the system prompt changed: it is bound to the conversation (https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5#thinking-blocks-are-tied-to-the-model-that-produced-them)", async () => {
    const content = (await firstTurn()).content as Anthropic.ContentBlockParam[];
    const answer = await secondTurn(content, { system: "You are terse." });
    expect(answer.body.error?.message).toContain("The block is bound to a different conversation.");
    expect(wire.emulator.refusals.at(-1)?.rule).toBe("thinking.conversation");
    // cache_control markers are not part of the conversation a block is bound to.
    const marked = await secondTurn(
      content.map((block) => (block.type === "tool_use" ? { ...block, cache_control: { type: "ephemeral" as const } } : block)),
    );
    expect(marked.status).toBe(200);
  });

  it("drops, without refusing, a block the target model cannot read, and says which", async () => {
    wire.brain.current = reader;
    const opus = await client().messages.create({ model: "claude-opus-5-5", max_tokens: 4096, tools: [readFile], messages: [question] });
    let seen: EmulatedRequest | undefined;
    wire.brain.current = (request) => {
      seen = request;
      return { content: [{ type: "text", text: "ok" }] };
    };
    // Claude Sonnet 5.5 does not read Claude Opus 5.5's thinking blocks; the API drops them and the request succeeds.
    expect((await secondTurn(opus.content as Anthropic.ContentBlockParam[])).status).toBe(200);
    expect(wire.emulator.exchanges.at(-1)?.droppedThinking).toEqual([
      { path: "messages.1.content.0", producedBy: "claude-opus-5-5" },
      { path: "messages.1.content.2", producedBy: "claude-opus-5-5" },
    ]);
    expect(seen?.messages[1]?.content.map((block) => block.type)).toEqual(["tool_call", "tool_call"]);
  });
});

describe("usage from the cache breakpoints seen (https://platform.claude.com/docs/en/build-with-claude/prompt-caching)", () => {
  const longSystem = "You review code carefully and explain each finding. ".repeat(60);
  const cached = (text: string, ttl?: "1h") => [{ type: "text", text, cache_control: { type: "ephemeral", ...(ttl ? { ttl } : {}) } }];
  const usageOf = async (body: unknown) => {
    const answer = await post(wire.server, body);
    expect(answer.status, answer.text).toBe(200);
    return answer.body.usage as {
      input_tokens: number;
      cache_read_input_tokens: number;
      cache_creation_input_tokens: number;
      cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
    };
  };

  it("writes a prefix at its breakpoint on the first request and reads it on the next", async () => {
    const body = { ...minimal, system: cached(longSystem) };
    const first = await usageOf(body);
    expect(first.cache_read_input_tokens).toBe(0);
    expect(first.cache_creation_input_tokens).toBeGreaterThan(512);
    expect(first.cache_creation).toEqual({ ephemeral_5m_input_tokens: first.cache_creation_input_tokens, ephemeral_1h_input_tokens: 0 });
    const second = await usageOf(body);
    expect(second).toMatchObject({
      cache_read_input_tokens: first.cache_creation_input_tokens,
      cache_creation_input_tokens: 0,
      input_tokens: first.input_tokens,
    });
  });

  it("reads the previous turns of a growing conversation and writes only what is new", async () => {
    const turn = (messages: unknown[]) => ({ ...minimal, system: [{ type: "text", text: longSystem }], messages });
    const last = (text: string) => ({ role: "user", content: [{ type: "text", text, cache_control: { type: "ephemeral" } }] });
    const first = await usageOf(turn([last("Review a.ts.")]));
    const second = await usageOf(
      turn([
        { role: "user", content: [{ type: "text", text: "Review a.ts." }] },
        { role: "assistant", content: "Done." },
        last("Now b.ts."),
      ]),
    );
    expect(second.cache_read_input_tokens).toBe(first.cache_creation_input_tokens);
    expect(second.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(second.cache_creation_input_tokens).toBeLessThan(first.cache_creation_input_tokens);
  });

  it("splits 1-hour from 5-minute writes, and a top-level cache_control marks the last block", async () => {
    const usage = await usageOf({
      ...minimal,
      system: cached(longSystem, "1h"),
      cache_control: { type: "ephemeral" },
      messages: [{ role: "user", content: "Review a.ts, please, and say what you find." }],
    });
    expect(usage.cache_creation.ephemeral_1h_input_tokens).toBeGreaterThan(512);
    expect(usage.cache_creation.ephemeral_5m_input_tokens).toBeGreaterThan(0);
    expect(usage.cache_creation_input_tokens).toBe(
      usage.cache_creation.ephemeral_1h_input_tokens + usage.cache_creation.ephemeral_5m_input_tokens,
    );
  });

  it("caches nothing below the model's minimum, and a changed effort misses the messages but not the system prompt", async () => {
    expect(await usageOf({ ...minimal, system: cached("Short.") })).toMatchObject({
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    });
    const body = (effort: string) => ({
      ...minimal,
      system: cached(longSystem),
      output_config: { effort },
      messages: [{ role: "user", content: [{ type: "text", text: "Review a.ts. ".repeat(80), cache_control: { type: "ephemeral" } }] }],
    });
    const high = await usageOf(body("high"));
    const low = await usageOf(body("low"));
    expect(low.cache_read_input_tokens).toBeGreaterThan(0);
    expect(low.cache_read_input_tokens).toBeLessThan(high.cache_creation_input_tokens);
    expect(low.cache_creation_input_tokens).toBeGreaterThan(0);
  });
});
