import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import type { ModelRequest, ModelResponse, ModelStreamEvent, ModelToolSchema } from "../src/model-provider.ts";
import { toDraft2020 } from "../src/tool-boundary/draft-2020-schema.ts";
import { PROVIDER_TOOL_NAME, ProviderToolNames } from "../src/tool-boundary/provider-tool-names.ts";
import { PERMISSIVE_TOOL_SCHEMA, providerToolSchema } from "../src/tool-boundary/provider-tool-schema.ts";
import { toolBoundary } from "../src/tool-boundary/tool-boundary.ts";

// An independent check against the 2020-12 meta-schema, whatever `$schema` says: what Anthropic checks each tool's input_schema against.
const ajv = new Ajv2020({ strict: false });
const isDraft2020 = (schema: unknown): boolean => ajv.validate("https://json-schema.org/draft/2020-12/schema", schema) === true;

const tool = (name: string, inputSchema: Record<string, unknown> = { type: "object" }): ModelToolSchema => ({
  name,
  description: `the ${name} tool`,
  inputSchema,
});
const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
const reply = (...names: string[]): ModelResponse => ({
  content: names.map((name, index) => ({ type: "tool_call" as const, id: `call_${index}`, name, input: {} })),
  stopReason: "tool_use",
  usage,
  provider: "test",
  model: "m",
  retries: 0,
});
const requestWith = (
  tools: ModelToolSchema[],
  messages: ModelRequest["messages"] = [{ role: "user", content: [{ type: "text", text: "go" }] }],
): ModelRequest => ({
  role: "worker",
  system: "s",
  messages,
  tools,
});

describe("provider-safe tool names", () => {
  it("keeps a name both providers accept and makes a dotted one safe", () => {
    const names = new ProviderToolNames(["read_file", "devserver.stop"]);
    expect(names.sent("read_file")).toBe("read_file");
    expect(names.sent("devserver.stop")).toBe("devserver_stop");
    expect(names.original("devserver_stop")).toBe("devserver.stop");
    expect(names.original("read_file")).toBe("read_file");
  });

  it("shortens a name over 64 characters with a hash, and two long names that share a prefix stay apart", () => {
    const first = `${"a".repeat(70)}_one`;
    const second = `${"a".repeat(70)}_two`;
    const names = new ProviderToolNames([first, second]);
    const sent = [names.sent(first), names.sent(second)];
    for (const name of sent) expect(name).toMatch(PROVIDER_TOOL_NAME);
    expect(new Set(sent).size).toBe(2);
    expect(sent.map((name) => names.original(name))).toEqual([first, second]);
  });

  it("gives two names that clean up alike each a name of its own, whichever order the tools come in", () => {
    const forward = new ProviderToolNames(["a.b", "a/b", "a b"]);
    const backward = new ProviderToolNames(["a b", "a/b", "a.b"]);
    const sent = ["a.b", "a/b", "a b"].map((name) => forward.sent(name));
    expect(new Set(sent).size).toBe(3);
    for (const name of sent) expect(name).toMatch(PROVIDER_TOOL_NAME);
    expect(["a.b", "a/b", "a b"].map((name) => backward.sent(name))).toEqual(sent);
    expect(sent.map((name) => forward.original(name))).toEqual(["a.b", "a/b", "a b"]);
  });

  it("sends the same names on every call of a step, so the cached prefix stays the same", () => {
    const tools = ["devserver.stop", "devserver.start", "x".repeat(80), "read_file"];
    const once = new ProviderToolNames(tools);
    const again = new ProviderToolNames([...tools]);
    expect(tools.map((name) => again.sent(name))).toEqual(tools.map((name) => once.sent(name)));
  });

  it("does not let a tool named like another tool's safe name capture that tool's calls", () => {
    // A hostile server offers "devserver_stop" next to the real "devserver.stop".
    const names = new ProviderToolNames(["devserver.stop", "devserver_stop"]);
    expect(names.sent("devserver_stop")).toBe("devserver_stop");
    const real = names.sent("devserver.stop");
    expect(real).not.toBe("devserver_stop");
    expect(real).toMatch(PROVIDER_TOOL_NAME);
    expect(names.original(real)).toBe("devserver.stop");
    expect(names.original("devserver_stop")).toBe("devserver_stop");
  });

  it("does not let a tool named like another tool's hashed name capture it either", () => {
    const hashed = new ProviderToolNames(["devserver.stop", "devserver_stop"]).sent("devserver.stop");
    // The hostile tool takes the hashed name the real one would get: the real one gets yet another.
    const names = new ProviderToolNames(["devserver.stop", "devserver_stop", hashed]);
    const real = names.sent("devserver.stop");
    expect([hashed, "devserver_stop"]).not.toContain(real);
    expect(names.original(real)).toBe("devserver.stop");
    expect(names.original(hashed)).toBe(hashed);
  });
});

describe("tool schemas as JSON Schema draft 2020-12", () => {
  it("rewrites the MCP SDK's draft-07 tuple as prefixItems and drops $schema", () => {
    const mcp = {
      type: "object",
      properties: {
        point: { type: "array", items: [{ type: "number" }, { type: "number" }], additionalItems: false, minItems: 2, maxItems: 2 },
        rest: { type: "array", items: [{ type: "string" }], additionalItems: { type: "number" } },
        list: { type: "array", items: { type: "string" }, additionalItems: false },
      },
      required: ["point"],
      $schema: "http://json-schema.org/draft-07/schema#",
    };
    expect(isDraft2020(mcp)).toBe(false);
    const schema = toDraft2020(mcp);
    expect(schema).toEqual({
      type: "object",
      properties: {
        point: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }], items: false, minItems: 2, maxItems: 2 },
        rest: { type: "array", prefixItems: [{ type: "string" }], items: { type: "number" } },
        list: { type: "array", items: { type: "string" } },
      },
      required: ["point"],
    });
    expect(isDraft2020(schema)).toBe(true);
  });

  it("moves definitions to $defs and follows every $ref there, including one into a tuple (kintone/mcp-server#553)", async () => {
    const draft07 = {
      type: "object",
      definitions: { keyword: { type: "string" }, "a/b": { type: "number" } },
      properties: {
        query: {
          type: "array",
          items: [{ type: "object", properties: { keyword: { $ref: "#/definitions/keyword" } } }],
          additionalItems: { $ref: "#/properties/query/items/0" },
        },
        slashed: { $ref: "#/definitions/a~1b" },
        // A property that happens to be called "definitions" is not the keyword.
        definitions: { type: "boolean" },
        pointsAtProperty: { $ref: "#/properties/definitions" },
      },
    };
    const { schema, problem } = await providerToolSchema(draft07);
    expect(problem).toBeUndefined();
    expect(schema).toEqual({
      type: "object",
      $defs: { keyword: { type: "string" }, "a/b": { type: "number" } },
      properties: {
        query: {
          type: "array",
          prefixItems: [{ type: "object", properties: { keyword: { $ref: "#/$defs/keyword" } } }],
          items: { $ref: "#/properties/query/prefixItems/0" },
        },
        slashed: { $ref: "#/$defs/a~1b" },
        definitions: { type: "boolean" },
        pointsAtProperty: { $ref: "#/properties/definitions" },
      },
    });
  });

  it("converts draft-04: boolean exclusive bounds, id, and dependencies", async () => {
    const draft04 = {
      $schema: "http://json-schema.org/draft-04/schema#",
      id: "http://example.com/tool.json",
      type: "object",
      properties: {
        port: { type: "integer", minimum: 0, exclusiveMinimum: true, maximum: 65535, exclusiveMaximum: false },
        named: { id: "#named", type: "string" },
      },
      dependencies: { user: ["password"], proxy: { required: ["port"] } },
    };
    const { schema, problem } = await providerToolSchema(draft04);
    expect(problem).toBeUndefined();
    expect(schema).toEqual({
      $id: "http://example.com/tool.json",
      type: "object",
      properties: { port: { type: "integer", exclusiveMinimum: 0, maximum: 65535 }, named: { $anchor: "named", type: "string" } },
      dependentRequired: { user: ["password"] },
      dependentSchemas: { proxy: { required: ["port"] } },
    });
  });

  it("makes a root without a type an object, and sends a schema that needed nothing as the same object", async () => {
    expect((await providerToolSchema({ properties: { a: { type: "string" } } })).schema).toEqual({
      type: "object",
      properties: { a: { type: "string" } },
    });
    expect((await providerToolSchema({ type: ["object", "null"] })).schema).toEqual({ type: "object" });
    const zodMade = { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false };
    expect((await providerToolSchema(zodMade)).schema).toBe(zodMade);
  });

  it.each([
    ["a root of another type", { type: "string" }, /root has type "string"/],
    ["garbage where a schema must be", { type: "object", properties: { a: 42 } }, /\/properties\/a is number 42; expected a schema/],
    ["an unknown type", { type: "object", properties: { a: { type: "text" } } }, /not valid JSON Schema draft 2020-12/],
    ["a reference to nothing", { type: "object", properties: { a: { $ref: "#/$defs/missing" } } }, /can't resolve reference/],
    ["a remote reference", { type: "object", properties: { a: { $ref: "https://example.com/schema.json" } } }, /can't resolve reference/],
    ["a pattern that is no regular expression", { type: "object", properties: { a: { type: "string", pattern: "(" } } }, /cannot be used/],
  ])("replaces %s with a permissive object schema and says why", async (_case, original, reason) => {
    const { schema, problem } = await providerToolSchema(original as Record<string, unknown>);
    expect(schema).toEqual(PERMISSIVE_TOOL_SCHEMA);
    expect(problem).toMatch(reason);
  });

  it("replaces a schema that contains itself, or nests past any tool's depth, instead of overflowing the stack", async () => {
    const cyclic: Record<string, unknown> = { type: "object", properties: {} };
    (cyclic.properties as Record<string, unknown>).self = cyclic;
    expect(await providerToolSchema(cyclic)).toEqual({ schema: PERMISSIVE_TOOL_SCHEMA, problem: "/properties/self contains itself" });

    let deep: Record<string, unknown> = { type: "string" };
    for (let level = 0; level < 10_000; level += 1) deep = { type: "object", properties: { next: deep } };
    const { schema, problem } = await providerToolSchema(deep);
    expect(schema).toEqual(PERMISSIVE_TOOL_SCHEMA);
    expect(problem).toMatch(/nested more than 64 schemas deep/);
  });

  it("keeps a recursive $ref: valid 2020-12, resolved by the providers", async () => {
    const tree = {
      type: "object",
      $defs: { node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/node" } } } } },
      properties: { root: { $ref: "#/$defs/node" } },
    };
    expect(await providerToolSchema(tree)).toEqual({ schema: tree });
  });
});

describe("the tool boundary of one call", () => {
  const tuple = {
    type: "object",
    properties: { point: { type: "array", items: [{ type: "number" }, { type: "number" }] } },
    $schema: "http://json-schema.org/draft-07/schema#",
  };

  it("sends safe names and 2020-12 schemas, and maps the reply's calls back to the original names", async () => {
    const boundary = await toolBoundary(requestWith([tool("devserver.stop", tuple), tool("read_file")]));
    expect(boundary.request.tools?.map((sent) => sent.name)).toEqual(["devserver_stop", "read_file"]);
    for (const sent of boundary.request.tools ?? []) expect(isDraft2020(sent.inputSchema)).toBe(true);
    expect(boundary.toolNames).toEqual({ "devserver.stop": "devserver_stop" });
    expect(
      boundary.response(reply("devserver_stop", "read_file")).content.map((block) => block.type === "tool_call" && block.name),
    ).toEqual(["devserver.stop", "read_file"]);
  });

  it("leaves a reply naming a tool it was never sent as the model wrote it, for the runtime to refuse", async () => {
    const boundary = await toolBoundary(requestWith([tool("devserver.stop", tuple)]));
    const names = boundary
      .response(reply("devserver.stop", "devserver_start", "rm_rf"))
      .content.map((block) => block.type === "tool_call" && block.name);
    expect(names).toEqual(["devserver.stop", "devserver_start", "rm_rf"]);
  });

  it("sends earlier calls in the history under the names the tools go out under, and a call to no tool under a safe name of its own", async () => {
    const history: ModelRequest["messages"] = [
      { role: "user", content: [{ type: "text", text: "go" }] },
      {
        role: "assistant",
        content: [
          { type: "tool_call", id: "c1", name: "devserver.stop", input: { point: [1, 2] } },
          { type: "tool_call", id: "c2", name: "made.up", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", toolCallId: "c1", content: "stopped" },
          { type: "tool_result", toolCallId: "c2", content: "unknown tool", isError: true },
        ],
      },
    ];
    const request = requestWith([tool("devserver.stop", tuple)], history);
    const boundary = await toolBoundary(request);
    const calls = boundary.request.messages[1]?.content.map((block) => block.type === "tool_call" && block.name);
    expect(calls?.[0]).toBe("devserver_stop");
    expect(calls?.[1]).toMatch(PROVIDER_TOOL_NAME);
    expect(boundary.toolNames).toEqual({ "devserver.stop": "devserver_stop", "made.up": calls?.[1] });
    // The model repeating that name gets no tool for it.
    const repeated = boundary.response(reply(calls?.[1] as string)).content[0];
    expect(repeated?.type === "tool_call" && repeated.name).toBe(calls?.[1]);
    // Rein's own history is untouched.
    expect(request.messages[1]?.content[0]).toMatchObject({ name: "devserver.stop" });
    // The next call sends the same message objects, so per-object caches downstream keep hitting.
    const next = await toolBoundary(request);
    expect(next.request.messages[1]).toBe(boundary.request.messages[1]);
  });

  it("sends what a first call would send on every later call of a step, as the history grows and is compacted", async () => {
    const tools = [tool("devserver.stop", tuple), tool("read_file")];
    const call = (id: string, name: string): ModelRequest["messages"][number] => ({
      role: "assistant",
      content: [{ type: "tool_call", id, name, input: {} }],
    });
    const result = (id: string): ModelRequest["messages"][number] => ({
      role: "user",
      content: [{ type: "tool_result", toolCallId: id, content: "ok" }],
    });
    const messages: ModelRequest["messages"] = [{ role: "user", content: [{ type: "text", text: "go" }] }];
    const turns = [
      () => messages.push(call("c1", "devserver.stop"), result("c1")),
      () => messages.push(call("c2", "made.up"), result("c2")),
      () => messages.push(call("c3", "read_file"), result("c3")),
      // Compaction replaces an early result with a shorter one: a new object in the middle of the history.
      () => messages.splice(2, 1, { role: "user", content: [{ type: "tool_result", toolCallId: "c1", content: "[dropped]" }] }),
      () => messages.splice(1, 2),
      () => messages.push(call("c4", "devserver.stop"), result("c4")),
    ];
    for (const turn of turns) {
      turn();
      const request = requestWith(tools, messages);
      const reused = await toolBoundary(request);
      // A new list of the same tools: nothing of an earlier call is reused.
      const fresh = await toolBoundary({ ...request, tools: [...tools] });
      expect(reused.request.messages).toEqual(fresh.request.messages);
      expect(reused.toolNames).toEqual(fresh.toolNames);
    }
    expect(Object.keys((await toolBoundary(requestWith(tools, messages))).toolNames)).toEqual(["devserver.stop", "made.up"]);
  });

  it("passes a request whose tools need nothing through as the same object", async () => {
    const request = requestWith([tool("read_file", { type: "object", properties: { path: { type: "string" } } })]);
    const boundary = await toolBoundary(request);
    expect(boundary.request).toBe(request);
    expect(boundary.toolNames).toEqual({});
    expect(boundary.schemasReplaced).toEqual([]);
  });

  it("names streamed tool-call deltas as Rein knows the tool", async () => {
    const boundary = await toolBoundary(requestWith([tool("devserver.stop", tuple)]));
    const events: ModelStreamEvent[] = [];
    boundary
      .options({ onEvent: (event) => events.push(event) })
      .onEvent?.({ type: "tool_call_delta", id: "c1", name: "devserver_stop", argumentsDelta: "{" });
    expect(events).toEqual([{ type: "tool_call_delta", id: "c1", name: "devserver.stop", argumentsDelta: "{" }]);
  });

  it("offers a tool whose schema cannot be sent with a permissive one, and says which and why", async () => {
    const boundary = await toolBoundary(
      requestWith([tool("broken", { type: "object", properties: { a: { type: "text" } } }), tool("read_file")]),
    );
    expect(boundary.request.tools?.[0]?.inputSchema).toEqual(PERMISSIVE_TOOL_SCHEMA);
    expect(boundary.schemasReplaced).toEqual([{ tool: "broken", problem: expect.stringContaining("not valid JSON Schema draft 2020-12") }]);
  });
});
