import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AnthropicProvider } from "../src/anthropic/anthropic-provider.ts";
import type { ModelProvider, ModelRequest, ModelToolSchema } from "../src/model-provider.ts";
import { OpenAIProvider } from "../src/openai/openai-provider.ts";
import { tracedComplete } from "../src/traced-complete.ts";
import {
  type FakeReply,
  FakeServer,
  OpenAIEmulator,
  type RecordedRequest,
  anthropicWireReply,
  openAIWireReply,
  recordingRetry,
  startAnthropicEmulator,
} from "../src/testing/index.ts";
import type { WireReply } from "../src/testing/wire-reply.ts";
import { type TraceEventInput, traceCatalogue, type TraceWriter } from "@rein/trace";

/**
 * The tool as an MCP client lists it from a server built on the MCP SDK's
 * `registerTool`: a dotted name, and a draft-07 schema with a tuple
 * (`items: [...]`) and a `$schema` marker.
 */
async function mcpListedTool(): Promise<ModelToolSchema> {
  const server = new McpServer({ name: "devserver", version: "1.0.0" });
  server.registerTool(
    "devserver.stop",
    { description: "Stop the dev server.", inputSchema: { point: z.tuple([z.number(), z.number()]), signal: z.string().optional() } },
    async () => ({
      content: [{ type: "text", text: "stopped" }],
    }),
  );
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "rein-test", version: "1.0.0" });
  await client.connect(clientSide);
  const [listed] = (await client.listTools()).tools;
  await client.close();
  if (!listed) throw new Error("the MCP server listed no tool");
  return { name: listed.name, description: listed.description ?? "", inputSchema: listed.inputSchema };
}

const ajv = new Ajv2020({ strict: false });
const DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema";

interface WireRules {
  /** The documented tool-name pattern. */
  name: RegExp;
  tools(body: Record<string, unknown>): { name: string; schema: unknown }[];
  /** The names of the tool calls in the request's history. */
  historyCalls(body: Record<string, unknown>): string[];
  refusal(message: string): FakeReply;
  reply(reply: WireReply, request: RecordedRequest): FakeReply;
}

type Body = Record<string, unknown>;
const listOf = (value: unknown): Body[] => (Array.isArray(value) ? (value as Body[]) : []);

/**
 * Anthropic Messages: a tool's name must match ^[a-zA-Z0-9_-]{1,128}$
 * (https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools)
 * and its input_schema must be JSON Schema draft 2020-12 (the SDK's
 * `Tool.input_schema`); one that is not fails the whole request with
 * "tools.N.custom.input_schema: JSON schema is invalid. It must match JSON
 * Schema draft 2020-12".
 */
const anthropicRules: WireRules = {
  name: /^[a-zA-Z0-9_-]{1,128}$/,
  tools: (body) => listOf(body.tools).map((tool) => ({ name: String(tool.name), schema: tool.input_schema })),
  historyCalls: (body) =>
    listOf(body.messages).flatMap((message) =>
      listOf(message.content).flatMap((block) => (block.type === "tool_use" ? [String(block.name)] : [])),
    ),
  refusal: (message) => ({ status: 400, json: { type: "error", error: { type: "invalid_request_error", message } } }),
  reply: anthropicWireReply,
};

/**
 * OpenAI: a function's name "must be a-z, A-Z, 0-9, or contain underscores
 * and dashes, with a maximum length of 64" (`FunctionDefinition.name` in the
 * API reference and the installed SDK), and its parameters are JSON Schema.
 */
const openAIRules: WireRules = {
  name: /^[a-zA-Z0-9_-]{1,64}$/,
  tools: (body) =>
    listOf(body.tools).map((tool) => {
      const fn = (tool.function ?? tool) as Body;
      return { name: String(fn.name), schema: fn.parameters };
    }),
  historyCalls: (body) =>
    listOf(body.messages).flatMap((message) => listOf(message.tool_calls).map((call) => String((call.function as Body | undefined)?.name))),
  refusal: (message) => ({ status: 400, json: { error: { message, type: "invalid_request_error", param: "tools", code: null } } }),
  reply: (reply, request) => openAIWireReply(reply, request),
};

const usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };

/**
 * A model behind a wire that enforces the documented rules: it refuses a
 * request as the API does, and otherwise calls the first tool it was
 * offered, by the name it was offered under, then answers once it has the
 * result.
 */
function strictModel(rules: WireRules) {
  return (request: RecordedRequest): FakeReply => {
    const tools = rules.tools(request.body);
    for (const [index, tool] of tools.entries()) {
      if (!rules.name.test(tool.name))
        return rules.refusal(`tools.${index}.custom.name: String should match pattern '${rules.name.source}'`);
      if (!ajv.validate(DRAFT_2020, tool.schema)) {
        return rules.refusal(
          `tools.${index}.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12 (https://json-schema.org/draft/2020-12).`,
        );
      }
    }
    for (const name of rules.historyCalls(request.body)) {
      if (!tools.some((tool) => tool.name === name))
        return rules.refusal(`a tool call in the history names ${name}, which is not among the tools`);
    }
    const answered = rules.historyCalls(request.body).length > 0;
    const first = tools[0];
    const reply: WireReply =
      answered || !first
        ? { content: [{ type: "text", text: "stopped" }], stopReason: "end_turn", usage, model: "emulated" }
        : {
            content: [{ type: "tool_call", id: "call_1", name: first.name, input: { point: [1, 2] } }],
            stopReason: "tool_use",
            usage,
            model: "emulated",
          };
    return rules.reply(reply, request);
  };
}

function recordingTrace(): TraceWriter & { events: TraceEventInput[] } {
  const events: TraceEventInput[] = [];
  return {
    events,
    append: async (event) => {
      events.push(event);
    },
    putBlobs: async () => {},
  };
}

const cases: { wire: string; rules: WireRules; path: string; make(server: FakeServer): ModelProvider }[] = [
  {
    wire: "Anthropic Messages (AnthropicProvider, @anthropic-ai/sdk)",
    rules: anthropicRules,
    path: "",
    make: (server) =>
      new AnthropicProvider({
        name: "anthropic",
        model: "claude-test-1",
        apiKey: "sk-ant-test",
        baseURL: server.baseURL,
        maxTokens: 1024,
        retry: recordingRetry(0).policy,
      }),
  },
  {
    wire: "OpenAI Chat Completions (OpenAIProvider, openai)",
    rules: openAIRules,
    path: "/v1",
    make: (server) =>
      new OpenAIProvider({
        name: "openai",
        model: "gpt-4.1",
        apiKey: "sk-test",
        baseURL: server.baseURL,
        maxTokens: 1024,
        retry: recordingRetry(0).policy,
      }),
  },
];

describe.each(cases)("an MCP tool named devserver.stop with a draft-07 tuple schema, over $wire", ({ rules, path, make }) => {
  it("goes out under a safe name with a 2020-12 schema, and its call comes back to Rein as devserver.stop, in this turn and the next", async () => {
    const server = await new FakeServer(strictModel(rules)).start(path);
    try {
      const provider = make(server);
      const trace = recordingTrace();
      const mcpTool = await mcpListedTool();
      expect(mcpTool.name).toBe("devserver.stop");
      expect(ajv.validate(DRAFT_2020, mcpTool.inputSchema)).toBe(false);

      const request: ModelRequest = {
        role: "worker",
        system: "You are the worker.",
        messages: [{ role: "user", content: [{ type: "text", text: "Stop the dev server." }] }],
        tools: [mcpTool],
      };
      const first = await tracedComplete(provider, request, { trace, runId: "run_boundary", stepId: "step_1" });

      const [sentTool] = rules.tools(server.requests[0]?.body ?? {});
      expect(sentTool?.name).toBe("devserver_stop");
      expect(ajv.validate(DRAFT_2020, sentTool?.schema)).toBe(true);
      expect(sentTool?.schema).toMatchObject({
        type: "object",
        properties: { point: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }], items: false } },
      });
      expect(sentTool?.schema).not.toHaveProperty("$schema");
      expect(first.content).toEqual([{ type: "tool_call", id: "call_1", name: "devserver.stop", input: { point: [1, 2] } }]);

      // The next turn carries the call in its history: under the name the tool goes out under.
      const second = await tracedComplete(
        provider,
        {
          ...request,
          messages: [
            ...request.messages,
            { role: "assistant", content: first.content },
            { role: "user", content: [{ type: "tool_result", toolCallId: "call_1", content: "stopped" }] },
          ],
        },
        { trace, runId: "run_boundary", stepId: "step_1" },
      );
      expect(rules.historyCalls(server.requests[1]?.body ?? {})).toEqual(["devserver_stop"]);
      expect(second.content).toEqual([{ type: "text", text: "stopped" }]);

      // The trace says what the model saw, and keeps Rein's names everywhere else.
      const called = trace.events
        .filter((event) => event.kind === "model.called")
        .map((event) => traceCatalogue["model.called"].payload.parse(event.payload));
      expect(called.map((payload) => payload.toolNames)).toEqual([
        { "devserver.stop": "devserver_stop" },
        { "devserver.stop": "devserver_stop" },
      ]);
      expect(called[0]?.tools).toEqual(["devserver.stop"]);
      const responded = trace.events.find(
        (event): event is Extract<TraceEventInput, { kind: "model.responded" }> => event.kind === "model.responded",
      );
      expect(responded?.payload.content).toEqual(first.content);
    } finally {
      await server.stop();
    }
  });
});

/** The emulated model: calls the first tool it is offered, by the name it is offered under, then answers once it has the result. */
function callsFirstTool(tools: readonly ModelToolSchema[], messages: readonly ModelRequest["messages"][number][]) {
  const answered = messages.some((message) => message.content.some((block) => block.type === "tool_result"));
  const first = tools[0];
  return answered || !first ? { text: "stopped" } : { call: { id: "call_1", name: first.name, input: { point: [1, 2] } } };
}

describe("the same tool through the strict emulators in @rein/models/testing", () => {
  const request = async (): Promise<ModelRequest> => ({
    role: "worker",
    system: "You are the worker.",
    messages: [{ role: "user", content: [{ type: "text", text: "Stop the dev server." }] }],
    tools: [await mcpListedTool()],
  });
  const nextTurn = (first: ModelRequest, reply: ModelRequest["messages"][number]["content"]): ModelRequest => ({
    ...first,
    messages: [
      ...first.messages,
      { role: "assistant", content: reply },
      { role: "user", content: [{ type: "tool_result", toolCallId: "call_1", content: "stopped" }] },
    ],
  });

  it("Anthropic Messages (claude-sonnet-5-5): no request refused, devserver_stop offered, devserver.stop back", async () => {
    const seen: string[][] = [];
    const { emulator, server } = await startAnthropicEmulator({
      brain: (view) => {
        seen.push(view.tools.map((tool) => tool.name));
        const move = callsFirstTool(view.tools, view.messages);
        return {
          content: move.call
            ? [{ type: "tool_use", id: move.call.id, name: move.call.name, input: move.call.input }]
            : [{ type: "text", text: move.text ?? "" }],
        };
      },
    });
    try {
      const provider = new AnthropicProvider({
        name: "anthropic",
        model: "claude-sonnet-5-5",
        apiKey: "sk-ant-test",
        baseURL: server.baseURL,
        maxTokens: 4096,
        retry: recordingRetry(0).policy,
      });
      const trace = recordingTrace();
      const first = await request();
      const reply = await tracedComplete(provider, first, { trace, runId: "run_emulated", stepId: "step_1" });
      expect(reply.content.filter((block) => block.type === "tool_call")).toEqual([
        { type: "tool_call", id: "call_1", name: "devserver.stop", input: { point: [1, 2] } },
      ]);
      const done = await tracedComplete(provider, nextTurn(first, reply.content), { trace, runId: "run_emulated", stepId: "step_1" });
      expect(done.content.filter((block) => block.type === "text")).toEqual([{ type: "text", text: "stopped" }]);
      expect(emulator.refusals).toEqual([]);
      expect(seen).toEqual([["devserver_stop"], ["devserver_stop"]]);
    } finally {
      await server.stop();
    }
  });

  it("OpenAI Chat Completions (gpt-4.1): no request refused, devserver_stop offered, devserver.stop back", async () => {
    const seen: string[][] = [];
    const emulator = new OpenAIEmulator({
      brain: (view) => {
        seen.push(view.tools.map((tool) => tool.name));
        const move = callsFirstTool(view.tools, view.messages);
        return { content: move.call ? [{ type: "tool_call", ...move.call }] : [{ type: "text", text: move.text ?? "" }] };
      },
    });
    const server = await emulator.start();
    try {
      const provider = new OpenAIProvider({
        name: "openai",
        model: "gpt-4.1",
        apiKey: "sk-test",
        baseURL: server.baseURL,
        maxTokens: 4096,
        retry: recordingRetry(0).policy,
      });
      const trace = recordingTrace();
      const first = await request();
      const reply = await tracedComplete(provider, first, { trace, runId: "run_emulated", stepId: "step_1" });
      expect(reply.content.filter((block) => block.type === "tool_call")).toEqual([
        { type: "tool_call", id: "call_1", name: "devserver.stop", input: { point: [1, 2] } },
      ]);
      const done = await tracedComplete(provider, nextTurn(first, reply.content), { trace, runId: "run_emulated", stepId: "step_1" });
      expect(done.content.filter((block) => block.type === "text")).toEqual([{ type: "text", text: "stopped" }]);
      expect(emulator.refusals).toEqual([]);
      expect(seen).toEqual([["devserver_stop"], ["devserver_stop"]]);
    } finally {
      await server.stop();
    }
  });
});
