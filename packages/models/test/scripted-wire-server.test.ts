import { afterEach, describe, expect, it } from "vitest";
import { AnthropicProvider } from "../src/anthropic/anthropic-provider.ts";
import type { ModelRequest, ModelStreamEvent } from "../src/model-provider.ts";
import { OpenAIProvider } from "../src/openai/openai-provider.ts";
import type { ModelScriptInput } from "../src/scripted/script.ts";
import { type FakeServer, startScriptedWireServer } from "../src/testing/index.ts";

const script: ModelScriptInput = {
  planner: [{ match: "Plan it", turns: [{ output: { step: "read the file", done: false } }] }],
  worker: [
    {
      match: "Fix it",
      turns: [
        {
          text: "Let me look first.",
          toolCalls: [
            { id: "call_a", name: "read_file", input: { path: 'src/a "quoted".js' } },
            { id: "call_b", name: "list_files", input: {} },
          ],
        },
        { text: "Fixed the bug." },
      ],
    },
  ],
};

const workerRequest: ModelRequest = {
  role: "worker",
  system: "You are the worker.",
  messages: [{ role: "user", content: [{ type: "text", text: "Task: Fix it" }] }],
  tools: [
    { name: "read_file", description: "Read", inputSchema: { type: "object", properties: { path: { type: "string" } } } },
    { name: "list_files", description: "List", inputSchema: { type: "object", properties: {} } },
  ],
};

const settings = { model: "m-1", apiKey: "sk-test-key-123456", maxTokens: 256, retry: { maxRetries: 0 } };

describe("a scripted wire server drives the adapters through the official SDKs", () => {
  const servers: FakeServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.stop()));
  });

  // Current Claude models refuse a forced tool; structured output goes through output_config.format
  // (https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5#forced-tool-use-is-not-supported).
  it("answers Anthropic structured output asked through output_config.format with the JSON text", async () => {
    const server = await startScriptedWireServer({ format: "anthropic", role: "planner", script, model: "claude-fake" });
    servers.push(server);
    const provider = new AnthropicProvider({ ...settings, name: "anthropic", baseURL: server.baseURL });
    const response = await provider.complete({
      role: "planner",
      system: "Plan it",
      messages: [{ role: "user", content: [{ type: "text", text: "Goal" }] }],
      output: { name: "plan", schema: { type: "object", properties: { step: { type: "string" }, done: { type: "boolean" } } } },
    });
    expect(server.requests[0]?.body.tool_choice).toBeUndefined();
    expect(server.requests[0]?.body.output_config).toMatchObject({ format: { type: "json_schema" } });
    expect(response.output).toEqual({ step: "read the file", done: false });
    expect(response.model).toBe("claude-fake");
    expect(response.usage.inputTokens).toBeGreaterThan(0);
  });

  for (const format of ["anthropic", "openai", "openai-compatible"] as const) {
    it(`streams text deltas and assembles several tool calls (${format}), then plays the next turn`, async () => {
      const server = await startScriptedWireServer({ format, role: "worker", script, model: "fake-model" });
      servers.push(server);
      const provider =
        format === "anthropic"
          ? new AnthropicProvider({ ...settings, name: format, baseURL: server.baseURL })
          : new OpenAIProvider({ ...settings, name: format, kind: format, baseURL: server.baseURL });
      const events: ModelStreamEvent[] = [];
      const first = await provider.complete(workerRequest, { onEvent: (event) => events.push(event) });

      expect(server.requests[0]?.body.stream).toBe(true);
      const deltas = events.flatMap((event) => (event.type === "text_delta" ? [event.text] : []));
      expect(deltas.length).toBeGreaterThan(1);
      expect(deltas.join("")).toBe("Let me look first.");
      expect(first.stopReason).toBe("tool_use");
      expect(first.content).toEqual([
        { type: "text", text: "Let me look first." },
        { type: "tool_call", id: "call_a", name: "read_file", input: { path: 'src/a "quoted".js' } },
        { type: "tool_call", id: "call_b", name: "list_files", input: {} },
      ]);
      // A compatible server may report an empty model; the adapter then names the configured one.
      expect(first.model).toBe(format === "openai-compatible" ? "m-1" : "fake-model");

      const second = await provider.complete({
        ...workerRequest,
        messages: [
          ...workerRequest.messages,
          { role: "assistant", content: first.content },
          {
            role: "user",
            content: [
              { type: "tool_result", toolCallId: "call_a", content: "bug" },
              { type: "tool_result", toolCallId: "call_b", content: "a.js" },
            ],
          },
        ],
      });
      expect(server.requests[1]?.body.stream).toBe(false);
      expect(second.content).toEqual([{ type: "text", text: "Fixed the bug." }]);
      expect(second.stopReason).toBe("end_turn");
    });
  }

  const post = async (server: FakeServer, path: string, body: string) => {
    const response = await fetch(`${server.baseURL}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body });
    return { status: response.status, body: await response.text() };
  };

  it("answers a body that is not a JSON object with a 400 that says so", async () => {
    const server = await startScriptedWireServer({ format: "openai", role: "worker", script, model: "fake-model" });
    servers.push(server);
    expect(await post(server, "/chat/completions", "{oops")).toMatchObject({
      status: 400,
      body: expect.stringContaining("fake server: the request body is not JSON: {oops"),
    });
    expect(await post(server, "/chat/completions", "[1, 2]")).toMatchObject({
      status: 400,
      body: expect.stringContaining("the request body is JSON but not an object"),
    });
  });

  it("answers messages that are not a list of {role, content}, or a malformed forced tool, with a 400 naming the field", async () => {
    const openai = await startScriptedWireServer({ format: "openai", role: "worker", script, model: "fake-model" });
    const anthropic = await startScriptedWireServer({ format: "anthropic", role: "planner", script, model: "claude-fake" });
    servers.push(openai, anthropic);
    const messages = await post(openai, "/chat/completions", JSON.stringify({ model: "m", messages: "Task: Fix it" }));
    expect(messages).toMatchObject({
      status: 400,
      body: expect.stringContaining("the request's messages are not a list of {role, content}"),
    });
    const forcing = {
      model: "m",
      system: "s",
      messages: [{ role: "user", content: "Plan it" }],
      tool_choice: { type: "tool", name: "plan" },
      tools: [{ input_schema: {} }],
    };
    const forced = await post(anthropic, "/v1/messages", JSON.stringify(forcing));
    expect(forced).toMatchObject({ status: 400, body: expect.stringContaining("a request forcing a tool is malformed") });
    expect(forced.body).toContain("tools[0].name");
  });
});
