import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { completeStructured, type ModelProvider, type ModelRequest, type ModelResponse } from "@rein/models";
import type { ContentBlock } from "@rein/contracts/model";
import { testRuntimePerTest } from "../../src/testing/index.ts";

const Answer = z.object({ summary: z.string(), items: z.array(z.string()) });

/** A provider that answers each call with the next of `replies` and keeps every request it was sent. */
function providerOf(replies: ContentBlock[][], stopReason: ModelResponse["stopReason"]): ModelProvider & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    name: "fake",
    kind: "fake",
    model: "fake-1",
    requests,
    async complete(request) {
      requests.push(structuredClone(request));
      const content = replies[requests.length - 1] ?? [];
      const text = content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
      let output: unknown;
      try {
        output = text ? JSON.parse(text) : undefined;
      } catch {
        output = undefined;
      }
      return {
        content,
        stopReason: requests.length === 1 ? stopReason : "end_turn",
        usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
        provider: "fake",
        model: "fake-1",
        retries: 0,
        output,
      };
    },
  };
}

describe("repairing a structured output", () => {
  const fixture = testRuntimePerTest({ beforeEach, afterEach });
  const trace = () => ({ trace: fixture.runtime.trace, runId: "run_repair" });
  const request: ModelRequest = {
    role: "planner",
    system: "plan",
    messages: [{ role: "user", content: [{ type: "text", text: "goal" }] }],
    output: { name: "answer", schema: {} },
  };

  // Every tool_use must be answered by a tool_result in the next user message:
  // https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls
  // (and on OpenAI every function call by its output). A repair is not a tool loop.
  it("asks again with a valid conversation when the output was cut off as a tool call: no call left unanswered", async () => {
    const cut: ContentBlock[] = [
      { type: "thinking", text: "planning", signature: "sig", producer: { api: "anthropic-messages", model: "fake-1" } },
      {
        type: "tool_call",
        id: "toolu_1",
        name: "answer",
        input: {},
        incomplete: { reason: "max_tokens", rawArguments: '{"summary": "half' },
      },
    ];
    const provider = providerOf([cut, [{ type: "text", text: '{"summary":"s","items":["a"]}' }]], "max_tokens");
    const result = await completeStructured(provider, request, trace(), { schema: Answer });
    expect(result.value).toEqual({ summary: "s", items: ["a"] });
    const repair = provider.requests[1];
    const blocks = repair?.messages.flatMap((message) => message.content) ?? [];
    expect(blocks.some((block) => block.type === "tool_call")).toBe(false);
    const said = repair?.messages.at(-2);
    expect(said?.role).toBe("assistant");
    expect(JSON.stringify(said?.content)).toContain('{\\"summary\\": \\"half');
    expect(JSON.stringify(repair?.messages.at(-1)?.content)).toMatch(/cut off/);
  });

  it("keeps the conversation's strict alternation when the invalid reply was empty", async () => {
    const provider = providerOf([[], [{ type: "text", text: '{"summary":"s","items":[]}' }]], "end_turn");
    await completeStructured(provider, request, trace(), { schema: Answer });
    const roles = provider.requests[1]?.messages.map((message) => message.role);
    expect(roles).toEqual(["user", "assistant", "user"]);
    expect(provider.requests[1]?.messages[1]?.content.every((block) => block.type !== "text" || block.text.length > 0)).toBe(true);
  });
});
