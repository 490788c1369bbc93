import { describe, expect, it } from "vitest";
import { type OpenAIEmulatorReply, openAIDocs } from "../src/testing/index.ts";
import { eventsOf, jsonOf, post, scriptedEmulator, statusOf } from "./openai-emulator-support.ts";

const readFile = {
  type: "function",
  name: "read_file",
  description: "Reads a file",
  strict: false,
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};
const base = { model: "gpt-6-sol", store: false, include: ["reasoning.encrypted_content"], input: "Compare a.ts and b.ts." };
const answer = (text: string): OpenAIEmulatorReply => ({ content: [{ type: "text", text }] });
const twoCalls: OpenAIEmulatorReply = {
  content: [
    { type: "thinking", text: "I should read both files.", signature: "", producer: { api: "openai-responses", model: "brain" } },
    { type: "tool_call", id: "call_a", name: "read_file", input: { path: "a.ts" } },
    { type: "tool_call", id: "call_b", name: "read_file", input: { path: "b.ts" } },
  ],
};

type Item = Record<string, unknown> & { type: string };
const outputOf = (reply: Parameters<typeof jsonOf>[0]) => jsonOf(reply).output as Item[];
const answers = (calls: Item[]): Item[] =>
  calls
    .filter((item) => item.type === "function_call")
    .map((call) => ({ type: "function_call_output", call_id: call.call_id, output: `contents of ${String(call.call_id)}` }));

/** The first turn of a tool loop: the request, and the output items the model answered with. */
async function firstTurn(emulator: ReturnType<typeof scriptedEmulator>["emulator"], extra: Record<string, unknown> = {}) {
  const first = { ...base, tools: [readFile], reasoning: { effort: "high", summary: "auto" }, ...extra };
  const output = outputOf(await post(emulator, "/v1/responses", first));
  return { first, output, input: [{ role: "user", content: base.input }, ...output, ...answers(output)] };
}

describe("the Responses emulator enforces OpenAI's documented rules", () => {
  it(`refuses an unknown model with 404 model_not_found (${openAIDocs.errorCodes})`, async () => {
    const { emulator } = scriptedEmulator([]);
    const reply = await post(emulator, "/v1/responses", { ...base, model: "gpt-nonexistent" });
    expect(statusOf(reply)).toBe(404);
    expect(jsonOf(reply).error).toEqual({
      message: "The model `gpt-nonexistent` does not exist or you do not have access to it.",
      type: "invalid_request_error",
      param: "model",
      code: "model_not_found",
    });
    expect(emulator.refusals.map((refusal) => refusal.rule)).toEqual([openAIDocs.errorCodes]);
  });

  it(`refuses a reasoning effort the model does not list: GPT-6 Astra has no none (${openAIDocs.latestModel})`, async () => {
    const { emulator } = scriptedEmulator([answer("ok")]);
    const refused = await post(emulator, "/v1/responses", { ...base, model: "gpt-6-astra", reasoning: { effort: "none" } });
    expect(jsonOf(refused).error).toMatchObject({ param: "reasoning.effort", code: "unsupported_value" });
    expect(jsonOf(refused).error?.message).toContain("Supported values are: 'low', 'medium', 'high', 'xhigh', and 'max'.");
    expect(statusOf(await post(emulator, "/v1/responses", { ...base, model: "gpt-6-astra", reasoning: { effort: "xhigh" } }))).toBe(200);
  });

  it(`refuses sampling parameters unless the effort is none (${openAIDocs.latestModel})`, async () => {
    const { emulator } = scriptedEmulator([answer("cold")]);
    const refused = await post(emulator, "/v1/responses", { ...base, temperature: 0.2 });
    expect(statusOf(refused)).toBe(400);
    expect(jsonOf(refused).error).toMatchObject({
      message: "Unsupported parameter: 'temperature' is not supported with this model.",
      param: "temperature",
      code: "unsupported_parameter",
    });
    expect(statusOf(await post(emulator, "/v1/responses", { ...base, temperature: 0.2, reasoning: { effort: "none" } }))).toBe(200);
  });

  it(`refuses function names outside ^[a-zA-Z0-9_-]{1,64}$ (${openAIDocs.functionCalling})`, async () => {
    const { emulator } = scriptedEmulator([]);
    const dotted = await post(emulator, "/v1/responses", { ...base, tools: [{ ...readFile, name: "devserver.stop" }] });
    expect(jsonOf(dotted).error).toEqual({
      message: "Invalid 'tools[0].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
      type: "invalid_request_error",
      param: "tools[0].name",
      code: "invalid_value",
    });
    const long = await post(emulator, "/v1/responses", { ...base, tools: [{ ...readFile, name: "a".repeat(65) }] });
    expect(jsonOf(long).error).toMatchObject({ param: "tools[0].name", code: "string_above_max_length" });
  });

  it(`refuses a draft-07 tuple in tool parameters, which must be draft 2020-12 (${openAIDocs.functionCalling})`, async () => {
    const { emulator } = scriptedEmulator([answer("ok")]);
    const tuple = { type: "object", properties: { window: { type: "array", items: [{ type: "integer" }, { type: "integer" }] } } };
    const refused = await post(emulator, "/v1/responses", { ...base, tools: [{ ...readFile, parameters: tuple }] });
    expect(jsonOf(refused).error).toMatchObject({ param: "tools[0].parameters", code: "invalid_function_parameters" });
    expect(jsonOf(refused).error?.message).toMatch(
      /^Invalid schema for function 'read_file': In context=\('properties', 'window'\), .*draft 2020-12.*prefixItems/,
    );
    const prefixItems = {
      type: "object",
      properties: { window: { type: "array", prefixItems: [{ type: "integer" }, { type: "integer" }] } },
    };
    expect(statusOf(await post(emulator, "/v1/responses", { ...base, tools: [{ ...readFile, parameters: prefixItems }] }))).toBe(200);
  });

  it(`holds a strict function (strict is the Responses default) to strict schema rules (${openAIDocs.structuredOutputs})`, async () => {
    const { emulator } = scriptedEmulator([]);
    const optional = {
      type: "object",
      properties: { path: { type: "string" }, lines: { type: "integer" } },
      required: ["path"],
      additionalProperties: false,
    };
    const { strict: _strict, ...byDefault } = readFile;
    const refused = await post(emulator, "/v1/responses", { ...base, tools: [{ ...byDefault, parameters: optional }] });
    expect(jsonOf(refused).error).toMatchObject({ param: "tools[0].parameters", code: "invalid_json_schema" });
    expect(jsonOf(refused).error?.message).toContain(
      "'required' is required to be supplied and to be an array including every key in properties. Missing 'lines'.",
    );
    const open = await post(emulator, "/v1/responses", {
      ...base,
      tools: [{ ...readFile, strict: true, parameters: { type: "object", properties: {}, required: [] } }],
    });
    expect(jsonOf(open).error?.message).toContain("'additionalProperties' is required to be supplied and to be false.");
  });

  it(`refuses a strict text.format schema with an optional field or an unsupported keyword (${openAIDocs.structuredOutputs})`, async () => {
    const { emulator } = scriptedEmulator([]);
    const format = (schema: unknown) => ({ ...base, text: { format: { type: "json_schema", name: "verdict", strict: true, schema } } });
    const optional = await post(
      emulator,
      "/v1/responses",
      format({ type: "object", properties: { note: { type: "string" } }, additionalProperties: false }),
    );
    expect(jsonOf(optional).error).toMatchObject({ param: "text.format.schema", code: "invalid_json_schema" });
    expect(jsonOf(optional).error?.message).toBe(
      "Invalid schema for response_format 'verdict': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'note'.",
    );
    const allOf = await post(
      emulator,
      "/v1/responses",
      format({ type: "object", properties: {}, required: [], additionalProperties: false, allOf: [] }),
    );
    expect(jsonOf(allOf).error?.message).toContain("'allOf' is not permitted.");
    const badName = await post(emulator, "/v1/responses", {
      ...base,
      text: { format: { type: "json_schema", name: "the plan!", schema: { type: "object" } } },
    });
    expect(jsonOf(badName).error).toMatchObject({ param: "text.format.name", code: "invalid_value" });
  });

  it(`refuses max_output_tokens below 16 or above the model's limit (${openAIDocs.responsesCreate})`, async () => {
    const { emulator } = scriptedEmulator([]);
    expect(jsonOf(await post(emulator, "/v1/responses", { ...base, max_output_tokens: 5 })).error).toMatchObject({
      param: "max_output_tokens",
      code: "integer_below_min_value",
    });
    expect(jsonOf(await post(emulator, "/v1/responses", { ...base, max_output_tokens: 200_000 })).error).toMatchObject({
      param: "max_output_tokens",
      code: "invalid_value",
    });
  });

  it(`answers parallel calls after a sealed reasoning item, and takes them back answered by call_id (${openAIDocs.functionCalling})`, async () => {
    const { emulator, seen } = scriptedEmulator([twoCalls, answer("Both read.")]);
    const { output, input } = await firstTurn(emulator);
    expect(output.map((item) => item.type)).toEqual(["reasoning", "function_call", "function_call"]);
    expect(output[0]).toMatchObject({
      summary: [{ type: "summary_text", text: "I should read both files." }],
      encrypted_content: expect.stringMatching(/^gAAA/),
    });
    expect(output.slice(1)).toMatchObject([
      { call_id: "call_a", name: "read_file", arguments: '{"path":"a.ts"}', status: "completed" },
      { call_id: "call_b", name: "read_file", arguments: '{"path":"b.ts"}', status: "completed" },
    ]);

    const second = await post(emulator, "/v1/responses", { ...base, tools: [readFile], input });
    expect(statusOf(second)).toBe(200);
    expect(seen[1]?.messages.map((message) => [message.role, message.content.map((block) => block.type)])).toEqual([
      ["user", ["text"]],
      ["assistant", ["thinking", "tool_call", "tool_call"]],
      ["user", ["tool_result", "tool_result"]],
    ]);
    expect(emulator.refusals).toEqual([]);
  });

  describe(`reasoning items go back unmodified, with the calls they preceded, to the model that made them (${openAIDocs.reasoning})`, () => {
    const send = async (alter: (input: Item[]) => Item[], model = "gpt-6-sol") => {
      const { emulator } = scriptedEmulator([twoCalls, answer("done")]);
      const { input } = await firstTurn(emulator);
      const reply = await post(emulator, "/v1/responses", {
        ...base,
        model,
        tools: [readFile],
        input: alter(structuredClone(input) as Item[]),
      });
      return { status: statusOf(reply), error: jsonOf(reply).error };
    };
    const reasoningIn = (input: Item[]) => input.find((item) => item.type === "reasoning") as Item;

    it("refuses a summary altered in transit", async () => {
      const { status, error } = await send((input) => {
        (reasoningIn(input).summary as { text: string }[])[0] = { type: "summary_text", text: "I should read one file." } as never;
        return input;
      });
      expect(status).toBe(400);
      expect(error).toMatchObject({ code: "invalid_encrypted_content", type: "invalid_request_error" });
    });

    it("refuses encrypted content altered by one character", async () => {
      const { error } = await send((input) => {
        const item = reasoningIn(input);
        const content = String(item.encrypted_content);
        item.encrypted_content = `${content.slice(0, -1)}${content.endsWith("A") ? "B" : "A"}`;
        return input;
      });
      expect(error?.code).toBe("invalid_encrypted_content");
      expect(error?.message).toMatch(/could not be verified/);
    });

    it("refuses the function calls when their reasoning item was dropped", async () => {
      const { error } = await send((input) => input.filter((item) => item.type !== "reasoning"));
      expect(error?.message).toMatch(
        /^Item 'fc_\w+' of type 'function_call' was provided without its required 'reasoning' item: 'rs_\w+'\.$/,
      );
      expect(error?.param).toBe("input");
    });

    it("refuses a reasoning item sent to another model", async () => {
      const { error } = await send((input) => input, "gpt-6-luna");
      expect(error?.code).toBe("invalid_encrypted_content");
      expect(error?.message).toContain("produced by gpt-6-sol, not by gpt-6-luna");
    });

    it("refuses a reasoning item not followed by the output it preceded", async () => {
      const { error } = await send((input) => [input[0] as Item, reasoningIn(input)]);
      expect(error?.message).toMatch(/^Item 'rs_\w+' of type 'reasoning' was provided without its required following item\.$/);
    });

    it("refuses a reasoning item without its encrypted content: nothing was stored under store false", async () => {
      const { status, error } = await send((input) => {
        delete reasoningIn(input).encrypted_content;
        return input;
      });
      expect(status).toBe(404);
      expect(error?.message).toMatch(/Items are not persisted when `store` is set to false/);
    });
  });

  it(`refuses a call left unanswered and an output with no call (${openAIDocs.functionCalling})`, async () => {
    const { emulator } = scriptedEmulator([twoCalls]);
    const { input } = await firstTurn(emulator);
    const unanswered = await post(emulator, "/v1/responses", { ...base, tools: [readFile], input: input.slice(0, -1) });
    expect(jsonOf(unanswered).error).toMatchObject({ message: "No tool output found for function call call_b.", param: "input" });
    const orphan = [
      { role: "user", content: "hi" },
      { type: "function_call_output", call_id: "call_zz", output: "x" },
    ];
    const stray = await post(emulator, "/v1/responses", { ...base, input: orphan });
    expect(jsonOf(stray).error?.message).toBe("No tool call found for function call output with call_id call_zz.");
  });

  it(`returns encrypted content only when include asks for it, and a summary only when reasoning.summary does (${openAIDocs.reasoning})`, async () => {
    const { emulator } = scriptedEmulator([twoCalls]);
    const { output } = await firstTurn(emulator, { include: [], reasoning: { effort: "low" } });
    expect(output[0]).toEqual({ id: expect.stringMatching(/^rs_/), type: "reasoning", summary: [] });
  });

  it(`streams the documented event sequence, with a reasoning item's encrypted content only in output_item.done (${openAIDocs.responsesStreaming})`, async () => {
    const { emulator } = scriptedEmulator([
      { content: [twoCalls.content[0], { type: "text", text: "Reading a." }, twoCalls.content[1]] } as OpenAIEmulatorReply,
    ]);
    const events = eventsOf(
      await post(emulator, "/v1/responses", { ...base, stream: true, tools: [readFile], reasoning: { summary: "auto" } }),
    );
    expect(events.map((event) => event.data.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events.every((event) => event.event === event.data.type)).toBe(true);
    const types = events.map((event) => String(event.data.type)).filter((type, index, all) => all[index - 1] !== type);
    expect(types).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    const reasoning = events
      .filter((event) => (event.data.item as Item | undefined)?.type === "reasoning")
      .map((event) => (event.data.item as Item).encrypted_content);
    expect(reasoning).toEqual([null, expect.stringMatching(/^gAAA/)]);
    const completed = events.at(-1)?.data.response as { usage: { output_tokens_details: { reasoning_tokens: number } } };
    expect(completed.usage.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
  });

  it(`ends a reply cut by max_output_tokens incomplete, its last call incomplete and unfinished (${openAIDocs.responsesCreate})`, async () => {
    const { emulator } = scriptedEmulator([
      { ...twoCalls, stopReason: "max_tokens" },
      { ...twoCalls, stopReason: "max_tokens" },
    ]);
    const json = jsonOf(await post(emulator, "/v1/responses", { ...base, tools: [readFile] }));
    expect(json).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });
    const last = (json.output as Item[]).at(-1);
    expect(last).toMatchObject({ type: "function_call", status: "incomplete" });
    expect(() => JSON.parse(String(last?.arguments))).toThrow();
    const events = eventsOf(await post(emulator, "/v1/responses", { ...base, tools: [readFile], stream: true }));
    expect(events.at(-1)?.data.type).toBe("response.incomplete");
    expect(events.filter((event) => event.data.type === "response.function_call_arguments.done")).toHaveLength(1);
  });

  it(`writes null where strict decoding must fill a nullable field the brain left out (${openAIDocs.structuredOutputs})`, async () => {
    const { emulator } = scriptedEmulator([{ content: [], output: { decision: "continue" } }]);
    const schema = {
      type: "object",
      properties: { decision: { type: "string" }, note: { type: ["string", "null"] } },
      required: ["decision", "note"],
      additionalProperties: false,
    };
    const json = jsonOf(
      await post(emulator, "/v1/responses", { ...base, text: { format: { type: "json_schema", name: "verdict", strict: true, schema } } }),
    );
    const message = (json.output as Item[]).find((item) => item.type === "message") as unknown as { content: { text: string }[] };
    expect(JSON.parse(message.content[0]?.text ?? "")).toEqual({ decision: "continue", note: null });
  });

  it(`reads repeated prefixes from the cache and reports writes by TTL (${openAIDocs.promptCaching})`, async () => {
    const { emulator } = scriptedEmulator([answer("one"), answer("two"), answer("three")], { cacheMinimumTokens: 64 });
    const long = { ...base, instructions: "Follow the house style. ".repeat(40) };
    const usage = async (body: Record<string, unknown>) =>
      jsonOf(await post(emulator, "/v1/responses", body)).usage as { input_tokens: number; input_tokens_details: Record<string, unknown> };
    const first = await usage({ ...long, prompt_cache_options: { ttl: "12h" } });
    expect(first.input_tokens_details).toMatchObject({
      cached_tokens: 0,
      cache_write_tokens: first.input_tokens,
      cache_write_tokens_details: { ttl_30m_tokens: 0, ttl_12h_tokens: first.input_tokens },
    });
    const second = await usage({
      ...long,
      input: [
        { role: "user", content: base.input },
        { role: "user", content: "And c.ts." },
      ],
    });
    expect(second.input_tokens_details.cached_tokens).toBeGreaterThan(0);
    expect(Number(second.input_tokens_details.cached_tokens) + Number(second.input_tokens_details.cache_write_tokens)).toBe(
      second.input_tokens,
    );
    const tiny = await usage({ ...base, input: "hi" });
    expect(tiny.input_tokens_details).toMatchObject({ cached_tokens: 0, cache_write_tokens: 0 });
  });

  it(`counts responses left stored, which store false avoids (${openAIDocs.responsesCreate})`, async () => {
    const { emulator } = scriptedEmulator([answer("kept"), answer("not kept")]);
    const { store: _store, ...stored } = base;
    await post(emulator, "/v1/responses", stored);
    await post(emulator, "/v1/responses", base);
    expect(emulator.storedResponses).toBe(1);
  });

  it(`refuses a request without a key with 401 (${openAIDocs.errorCodes})`, async () => {
    const { emulator } = scriptedEmulator([]);
    const reply = await emulator.respond({ method: "POST", url: "/v1/responses", headers: {}, body: base });
    expect(statusOf(reply)).toBe(401);
  });
});
