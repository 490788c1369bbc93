import { describe, expect, it } from "vitest";
import { type OpenAIEmulatorReply, openAIDocs } from "../src/testing/index.ts";
import { eventsOf, jsonOf, post, scriptedEmulator, statusOf } from "./openai-emulator-support.ts";

const readFile = {
  type: "function",
  function: {
    name: "read_file",
    description: "Reads a file",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
};
const messages = [
  { role: "system", content: "You are the worker." },
  { role: "user", content: "Read a.ts." },
];
const call: OpenAIEmulatorReply = { content: [{ type: "tool_call", id: "call_a", name: "read_file", input: { path: "a.ts" } }] };
const answer = (text: string): OpenAIEmulatorReply => ({ content: [{ type: "text", text }] });

describe("the Chat Completions emulator enforces OpenAI's documented rules", () => {
  it(`refuses function tools with a reasoning effort on GPT-6, and takes them with effort none (${openAIDocs.deploymentChecklist})`, async () => {
    const { emulator } = scriptedEmulator([call]);
    for (const effort of [undefined, "low"]) {
      const refused = await post(emulator, "/v1/chat/completions", {
        model: "gpt-6-sol",
        messages,
        tools: [readFile],
        ...(effort ? { reasoning_effort: effort } : {}),
      });
      expect(statusOf(refused)).toBe(400);
      expect(jsonOf(refused).error).toEqual({
        message:
          "Function tools with reasoning_effort are not supported for gpt-6-sol in /v1/chat/completions. To use function tools, use /v1/responses or set reasoning_effort to 'none'.",
        type: "invalid_request_error",
        param: "reasoning_effort",
        code: null,
      });
    }
    const accepted = await post(emulator, "/v1/chat/completions", {
      model: "gpt-6-sol",
      messages,
      tools: [readFile],
      reasoning_effort: "none",
    });
    expect(jsonOf(accepted).choices).toMatchObject([
      {
        finish_reason: "tool_calls",
        message: { tool_calls: [{ id: "call_a", function: { name: "read_file", arguments: '{"path":"a.ts"}' } }] },
      },
    ]);
  });

  it(`gives GPT-6 Astra no function tools on Chat Completions at all: it has no effort none (${openAIDocs.deploymentChecklist})`, async () => {
    const { emulator } = scriptedEmulator([]);
    const atDefault = await post(emulator, "/v1/chat/completions", { model: "gpt-6-astra", messages, tools: [readFile] });
    expect(jsonOf(atDefault).error?.param).toBe("reasoning_effort");
    const atNone = await post(emulator, "/v1/chat/completions", {
      model: "gpt-6-astra",
      messages,
      tools: [readFile],
      reasoning_effort: "none",
    });
    expect(jsonOf(atNone).error).toMatchObject({ param: "reasoning_effort", code: "unsupported_value" });
  });

  it(`refuses logprobs while a reasoning model reasons (${openAIDocs.deploymentChecklist})`, async () => {
    const { emulator } = scriptedEmulator([answer("ok")]);
    expect(jsonOf(await post(emulator, "/v1/chat/completions", { model: "gpt-6-sol", messages, logprobs: true })).error).toMatchObject({
      param: "logprobs",
      code: "unsupported_parameter",
    });
    expect(
      statusOf(await post(emulator, "/v1/chat/completions", { model: "gpt-6-sol", messages, logprobs: true, reasoning_effort: "none" })),
    ).toBe(200);
  });

  it(`serves -pro and codex models only on /v1/responses (${openAIDocs.latestModel})`, async () => {
    const { emulator } = scriptedEmulator([answer("pro")]);
    const refused = await post(emulator, "/v1/chat/completions", { model: "gpt-6-astra-pro", messages });
    expect(statusOf(refused)).toBe(404);
    expect(jsonOf(refused).error?.message).toBe("This model is only supported in v1/responses and not in v1/chat/completions.");
    expect(statusOf(await post(emulator, "/v1/responses", { model: "gpt-6-astra-pro", input: "hi", store: false }))).toBe(200);
  });

  it(`refuses max_tokens on a reasoning model, which takes max_completion_tokens (${openAIDocs.chatCreate})`, async () => {
    const { emulator } = scriptedEmulator([answer("ok")]);
    const refused = await post(emulator, "/v1/chat/completions", { model: "gpt-6-sol", messages, max_tokens: 100 });
    expect(jsonOf(refused).error).toMatchObject({ param: "max_tokens", code: "unsupported_parameter" });
    expect(statusOf(await post(emulator, "/v1/chat/completions", { model: "gpt-6-sol", messages, max_completion_tokens: 100 }))).toBe(200);
  });

  it(`refuses a tool message that answers no call, and a call left unanswered (${openAIDocs.functionCalling})`, async () => {
    const { emulator } = scriptedEmulator([]);
    const stray = await post(emulator, "/v1/chat/completions", {
      model: "gpt-4.1",
      messages: [...messages, { role: "tool", tool_call_id: "call_x", content: "x" }],
    });
    expect(jsonOf(stray).error).toMatchObject({
      message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
      param: "messages.[2].role",
    });
    const calls = {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_a", type: "function", function: { name: "read_file", arguments: "{}" } }],
    };
    const unanswered = await post(emulator, "/v1/chat/completions", {
      model: "gpt-4.1",
      tools: [readFile],
      messages: [...messages, calls, { role: "user", content: "go on" }],
    });
    expect(jsonOf(unanswered).error?.message).toBe(
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_a",
    );
  });

  it(`refuses a function name outside the pattern, as Chat Completions names the field (${openAIDocs.functionCalling})`, async () => {
    const { emulator } = scriptedEmulator([]);
    const dotted = { type: "function", function: { ...readFile.function, name: "devserver.stop" } };
    expect(jsonOf(await post(emulator, "/v1/chat/completions", { model: "gpt-4.1", messages, tools: [dotted] })).error).toMatchObject({
      param: "tools[0].function.name",
      code: "invalid_value",
    });
  });

  it(`streams chunks with the usage chunk only when stream_options asks, and refuses stream_options without a stream (${openAIDocs.chatCreate})`, async () => {
    const { emulator } = scriptedEmulator([answer("Hello there."), answer("Hello there.")]);
    const withUsage = eventsOf(
      await post(emulator, "/v1/chat/completions", { model: "gpt-4.1", messages, stream: true, stream_options: { include_usage: true } }),
    );
    expect(withUsage.at(-1)?.data).toMatchObject({ choices: [], usage: { prompt_tokens: expect.any(Number) } });
    expect(withUsage.flatMap((event) => (event.data.choices as { delta: { content?: string } }[])[0]?.delta.content ?? []).join("")).toBe(
      "Hello there.",
    );
    const without = eventsOf(await post(emulator, "/v1/chat/completions", { model: "gpt-4.1", messages, stream: true }));
    expect(without.some((event) => "usage" in event.data)).toBe(false);
    const refused = await post(emulator, "/v1/chat/completions", { model: "gpt-4.1", messages, stream_options: { include_usage: true } });
    expect(jsonOf(refused).error?.param).toBe("stream_options");
  });

  it(`reports cached and written prompt tokens, and the reasoning spent (${openAIDocs.promptCaching})`, async () => {
    const { emulator } = scriptedEmulator([answer("one"), answer("two")], { cacheMinimumTokens: 64 });
    const long = [{ role: "system", content: "Follow the house style. ".repeat(40) }, messages[1]];
    const usage = async (sent: unknown[]) =>
      jsonOf(await post(emulator, "/v1/chat/completions", { model: "gpt-6-sol", messages: sent })).usage as Record<
        string,
        Record<string, number> & number
      >;
    const first = await usage(long);
    expect(first.prompt_tokens_details).toMatchObject({ cached_tokens: 0, cache_write_tokens: first.prompt_tokens });
    expect(first.completion_tokens_details?.reasoning_tokens).toBeGreaterThan(0);
    const second = await usage([...long, { role: "assistant", content: "one" }, { role: "user", content: "And b.ts." }]);
    expect(second.prompt_tokens_details?.cached_tokens).toBe(first.prompt_tokens);
  });
});
