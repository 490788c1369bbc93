import { transformJSONSchema } from "@anthropic-ai/sdk/lib/transform-json-schema";
import { describe, expect, it } from "vitest";
import { emulatorPerTest, minimal, post } from "./anthropic-emulator-support.ts";

// Each rule of the strict Anthropic emulator refuses what the page it cites says the API refuses, with the
// documented error body ({type: "error", error: {type, message}, request_id}, https://platform.claude.com/docs/en/api/errors).

const wire = emulatorPerTest();

async function refused(body: unknown, extraHeaders: Record<string, string | undefined> = {}) {
  const answer = await post(wire.server, body, extraHeaders);
  expect(answer.body.type, `expected a refusal, got ${answer.status}: ${answer.text.slice(0, 200)}`).toBe("error");
  expect(answer.body.request_id).toMatch(/^req_emu_/);
  return {
    status: answer.status,
    type: answer.body.error?.type,
    message: answer.body.error?.message ?? "",
    rule: wire.emulator.refusals.at(-1)?.rule,
  };
}

async function accepted(body: unknown, extraHeaders: Record<string, string | undefined> = {}) {
  const answer = await post(wire.server, body, extraHeaders);
  expect(answer.status, answer.text.slice(0, 300)).toBe(200);
  return answer;
}

const tool = (name: string, input_schema: Record<string, unknown> = { type: "object", properties: {} }) => ({
  name,
  description: "A tool.",
  input_schema,
});

describe("headers and model (https://platform.claude.com/docs/en/api/versioning, https://platform.claude.com/docs/en/api/errors)", () => {
  it("refuses a request without anthropic-version, and one without a key", async () => {
    expect(await refused(minimal, { "anthropic-version": undefined })).toMatchObject({
      status: 400,
      type: "invalid_request_error",
      message: "anthropic-version: header is required",
    });
    expect(await refused(minimal, { "x-api-key": undefined })).toMatchObject({ status: 401, type: "authentication_error" });
    await accepted(minimal, { "x-api-key": undefined, authorization: "Bearer sk-ant-emulator" });
    expect(wire.emulator.refusals.map((refusal) => refusal.rule)).toEqual(["headers.version", "headers.auth"]);
  });

  it("answers 404 not_found_error for a model it does not serve", async () => {
    expect(await refused({ ...minimal, model: "claude-sonnet-4-5-20250929" })).toMatchObject({
      status: 404,
      type: "not_found_error",
      message: "model: claude-sonnet-4-5-20250929",
    });
  });

  it("refuses a field the API does not take, naming it", async () => {
    expect((await refused({ ...minimal, tempreature: 1 })).message).toBe("tempreature: Extra inputs are not permitted");
    expect((await refused({ model: "claude-sonnet-5-5", messages: [] })).message).toBe("max_tokens: Field required");
  });
});

describe("sampling parameters (https://platform.claude.com/docs/en/api/versioning, https://platform.claude.com/docs/en/models/sonnet-5-5/migration-guide)", () => {
  it("refuses temperature, top_p and top_k on API version 2026-10-21, even at the default value", async () => {
    for (const [name, value] of [
      ["temperature", 1],
      ["temperature", 0],
      ["top_p", 0.9],
      ["top_k", 40],
    ] as const) {
      expect(await refused({ ...minimal, [name]: value })).toMatchObject({
        status: 400,
        type: "invalid_request_error",
        message: `${name}: Extra inputs are not permitted`,
      });
    }
  });

  it("refuses a non-default value on 2023-06-01 for a model that removed them", async () => {
    expect((await refused({ ...minimal, temperature: 0.2 }, { "anthropic-version": "2023-06-01" })).message).toBe(
      "`temperature` is deprecated for this model.",
    );
    await accepted({ ...minimal, temperature: 1 }, { "anthropic-version": "2023-06-01" });
  });
});

describe("forced tool use (https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5#forced-tool-use-is-not-supported)", () => {
  it.each([{ type: "tool", name: "plan" }, { type: "any" }])(
    "refuses tool_choice %o on claude-sonnet-5-5 and claude-opus-5-5",
    async (choice) => {
      for (const model of ["claude-sonnet-5-5", "claude-opus-5-5"]) {
        expect(await refused({ ...minimal, model, tools: [tool("plan")], tool_choice: choice })).toMatchObject({
          status: 400,
          type: "invalid_request_error",
          message: 'tool_choice: type "tool" and "any" are not supported for this model.',
        });
      }
    },
  );

  it("accepts auto and none there, and forcing on claude-sonnet-5, which still allows it", async () => {
    await accepted({ ...minimal, tools: [tool("plan")], tool_choice: { type: "auto" } });
    await accepted({ ...minimal, tools: [tool("plan")], tool_choice: { type: "none" } });
    await accepted({ ...minimal, model: "claude-sonnet-5", tools: [tool("plan")], tool_choice: { type: "tool", name: "plan" } });
  });
});

describe("thinking configuration (https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5, https://platform.claude.com/docs/en/build-with-claude/thinking)", () => {
  it("refuses disabled on claude-sonnet-5-5, pointing to between_tools, and manual budgets", async () => {
    expect((await refused({ ...minimal, thinking: { type: "disabled" } })).message).toContain('send "thinking": {"type": "between_tools"}');
    expect((await refused({ ...minimal, thinking: { type: "enabled", budget_tokens: 2048 } })).message).toBe(
      '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.',
    );
    expect((await refused({ ...minimal, model: "claude-opus-5-5", thinking: { type: "disabled" } })).message).toContain(
      '"thinking.type.disabled" is not supported',
    );
  });

  it("refuses between_tools with another field or at xhigh and max effort", async () => {
    expect(await refused({ ...minimal, thinking: { type: "between_tools", display: "summarized" } })).toMatchObject({
      rule: "thinking.between_tools",
    });
    expect(await refused({ ...minimal, thinking: { type: "between_tools" }, output_config: { effort: "xhigh" } })).toMatchObject({
      rule: "thinking.between_tools",
    });
    await accepted({ ...minimal, thinking: { type: "between_tools" }, output_config: { effort: "high" } });
  });

  it("takes display summarized and omitted, and updates only with its beta header", async () => {
    await accepted({ ...minimal, thinking: { type: "adaptive", display: "summarized" } });
    await accepted({ ...minimal, thinking: { type: "adaptive", display: "omitted" } });
    expect(await refused({ ...minimal, thinking: { type: "adaptive", display: "updates" } })).toMatchObject({ rule: "thinking.display" });
    await accepted(
      { ...minimal, thinking: { type: "adaptive", display: "updates" } },
      { "anthropic-beta": "thinking-display-updates-2026-08-18" },
    );
    await refused({ ...minimal, thinking: { type: "adaptive", display: "full" } });
  });

  it("takes the model's effort levels in output_config.effort and nothing else (https://platform.claude.com/docs/en/build-with-claude/effort)", async () => {
    await accepted({ ...minimal, output_config: { effort: "xhigh" } });
    expect((await refused({ ...minimal, output_config: { effort: "adaptive" } })).message).toContain(
      "output_config.effort: 'adaptive' is not supported",
    );
  });
});

describe("max_tokens (https://platform.claude.com/docs/en/models/overview)", () => {
  it("refuses more than the model's max output, with the API's message", async () => {
    await accepted({ ...minimal, max_tokens: 128_000 });
    expect((await refused({ ...minimal, max_tokens: 128_001 })).message).toBe(
      "max_tokens: 128001 > 128000, which is the maximum allowed number of output tokens for claude-sonnet-5-5",
    );
  });
});

describe("structured output schemas (https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations)", () => {
  const format = (schema: Record<string, unknown>) => ({ ...minimal, output_config: { format: { type: "json_schema", schema } } });
  const closed = (properties: Record<string, unknown>) => ({
    type: "object",
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
  });

  it("refuses an object that is not closed with additionalProperties: false", async () => {
    expect((await refused(format({ type: "object", properties: { a: { type: "string" } } }))).message).toBe(
      "output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false",
    );
    await refused(format(closed({ nested: { type: "object", properties: {} } })));
  });

  it.each([
    ["string length bounds", { title: { type: "string", minLength: 3 } }],
    ["numeric bounds", { n: { type: "integer", minimum: 0 } }],
    ["minItems above 1", { list: { type: "array", items: { type: "string" }, minItems: 2 } }],
    ["an unsupported string format", { at: { type: "string", format: "iso-week" } }],
    ["oneOf", { either: { oneOf: [{ type: "string" }, { type: "integer" }] } }],
  ])("refuses %s", async (_what, properties) => {
    expect(await refused(format(closed(properties)))).toMatchObject({
      status: 400,
      type: "invalid_request_error",
      rule: "output_config.format",
    });
  });

  it("refuses a recursive schema and an external $ref", async () => {
    expect(
      (
        await refused(
          format({ ...closed({ child: { $ref: "#/$defs/node" } }), $defs: { node: closed({ child: { $ref: "#/$defs/node" } }) } }),
        )
      ).message,
    ).toContain("recursive");
    expect((await refused(format(closed({ other: { $ref: "https://example.com/schema.json" } })))).message).toContain("external");
  });

  it("accepts minItems 1 and the SDK's transform of a schema it would refuse", async () => {
    await accepted(format(closed({ list: { type: "array", items: { type: "string" }, minItems: 1 } })));
    const refusedAsIs = {
      type: "object",
      properties: { title: { type: "string", minLength: 3 }, steps: { type: "array", items: { type: "string" }, minItems: 2 } },
      required: ["title"],
    };
    await refused(format(refusedAsIs));
    await accepted(format(transformJSONSchema(refusedAsIs)));
  });

  it("refuses more than 24 optional parameters across strict schemas (https://platform.claude.com/docs/en/build-with-claude/structured-outputs#schema-complexity-limits)", async () => {
    const properties = Object.fromEntries(Array.from({ length: 25 }, (_, index) => [`field_${index}`, { type: "string" }]));
    expect((await refused(format({ type: "object", properties, additionalProperties: false }))).message).toContain(
      "25 optional parameters",
    );
  });
});

describe("tool definitions (https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools, https://platform.claude.com/docs/en/api/messages)", () => {
  it("refuses a name outside ^[a-zA-Z0-9_-]{1,64}$, as an MCP tool's dotted name", async () => {
    expect((await refused({ ...minimal, tools: [tool("read_file"), tool("devserver.stop")] })).message).toBe(
      "tools.1.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
    );
    await refused({ ...minimal, tools: [tool("x".repeat(65))] });
  });

  it("refuses a draft-07 tuple items array, which is not draft 2020-12, and takes prefixItems", async () => {
    const tuple = { type: "object", properties: { point: { type: "array", items: [{ type: "number" }, { type: "number" }] } } };
    expect((await refused({ ...minimal, tools: [tool("plot", tuple)] })).message).toBe(
      "tools.0.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12 (https://json-schema.org/draft/2020-12).",
    );
    await accepted({
      ...minimal,
      tools: [
        tool("plot", { type: "object", properties: { point: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }] } } }),
      ],
    });
  });

  it("holds a strict tool's schema to the structured-output limitations", async () => {
    expect(
      await refused({ ...minimal, tools: [{ ...tool("plan", { type: "object", properties: { a: { type: "string" } } }), strict: true }] }),
    ).toMatchObject({ rule: "tools.strict_schema" });
    await accepted({
      ...minimal,
      tools: [
        {
          ...tool("plan", { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false }),
          strict: true,
        },
      ],
    });
  });
});

describe("tool results (https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls)", () => {
  const asked = { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a.ts" } }] };
  const body = (...messages: unknown[]) => ({
    ...minimal,
    tools: [tool("read_file")],
    messages: [{ role: "user", content: "Read a.ts" }, ...messages],
  });

  it("refuses a tool_use the next message does not answer", async () => {
    expect((await refused(body(asked, { role: "user", content: "go on" }))).message).toBe(
      "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    );
  });

  it("refuses a tool_result that answers nothing, and text ahead of the results", async () => {
    expect(
      (
        await refused(
          body(asked, {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "toolu_1", content: "A" },
              { type: "tool_result", tool_use_id: "toolu_9", content: "?" },
            ],
          }),
        )
      ).message,
    ).toContain("unexpected `tool_use_id` found in `tool_result` blocks: toolu_9");
    expect(
      (
        await refused(
          body(asked, {
            role: "user",
            content: [
              { type: "text", text: "Here:" },
              { type: "tool_result", tool_use_id: "toolu_1", content: "A" },
            ],
          }),
        )
      ).message,
    ).toContain("tool_result blocks must come first");
    await accepted(
      body(asked, {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: "A" },
          { type: "text", text: "Go on." },
        ],
      }),
    );
  });

  it("reads consecutive user messages as one turn, as the API combines them", async () => {
    await accepted(
      body(
        asked,
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "A" }] },
        { role: "user", content: "Go on." },
      ),
    );
  });

  it("refuses a conversation that ends with an assistant turn (prefill, https://platform.claude.com/docs/en/models/sonnet-5-5/migration-guide)", async () => {
    expect(
      (
        await refused({
          ...minimal,
          messages: [
            { role: "user", content: "Hi" },
            { role: "assistant", content: "The answer is" },
          ],
        })
      ).message,
    ).toBe("This model does not support assistant message prefill. The conversation must end with a user message.");
  });
});

describe("cache_control (https://platform.claude.com/docs/en/build-with-claude/prompt-caching)", () => {
  const marked = (text: string, ttl?: "1h") => ({ type: "text", text, cache_control: { type: "ephemeral", ...(ttl ? { ttl } : {}) } });

  it("refuses a fifth breakpoint, counting a top-level one", async () => {
    const four = [marked("a"), marked("b"), marked("c"), marked("d")];
    expect((await refused({ ...minimal, system: [...four, marked("e")] })).message).toBe(
      "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    );
    expect((await refused({ ...minimal, system: four, cache_control: { type: "ephemeral" } })).message).toBe(
      "A maximum of 4 blocks with cache_control may be provided. Found 5.",
    );
    await accepted({ ...minimal, system: four });
  });

  it("refuses a 1-hour breakpoint after a 5-minute one", async () => {
    expect(await refused({ ...minimal, system: [marked("a"), marked("b", "1h")] })).toMatchObject({ rule: "cache_control.ttl_order" });
    await accepted({ ...minimal, system: [marked("a", "1h"), marked("b")] });
  });

  it("refuses cache_control on a thinking block, which cannot be cached directly", async () => {
    const thinking = { type: "thinking", thinking: "", signature: "x", cache_control: { type: "ephemeral" } };
    expect(
      (
        await refused({
          ...minimal,
          messages: [
            minimal.messages[0],
            { role: "assistant", content: [thinking, { type: "text", text: "Hi." }] },
            { role: "user", content: "And?" },
          ],
        })
      ).message,
    ).toContain("messages.1.content.0.cache_control: Extra inputs are not permitted");
  });
});
