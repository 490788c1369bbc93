import { describe, expect, it } from "vitest";
import type { ModelMessage } from "@rein/contracts/model";
import { estimateRequestTokens, textOf } from "@rein/models";
import { fitContextBudget } from "../src/context-budget.ts";

const big = (label: string) => `${label}: ${"x".repeat(4000)}`;
const call = (id: string, name = "read_file"): ModelMessage => ({
  role: "assistant",
  content: [{ type: "tool_call", id, name, input: { path: `${id}.txt` } }],
});
const results = (...ids: string[]): ModelMessage => ({
  role: "user",
  content: ids.map((id) => ({ type: "tool_result" as const, toolCallId: id, content: big(id) })),
});

const task: ModelMessage = { role: "user", content: [{ type: "text", text: `Task: fix the bug. ${"Context. ".repeat(50)}` }] };
const history: ModelMessage[] = [
  task,
  call("c1", "list_files"),
  results("c1"),
  call("c2"),
  results("c2"),
  {
    role: "assistant",
    content: [
      { type: "tool_call", id: "c3", name: "read_file", input: {} },
      { type: "tool_call", id: "c4", name: "run_command", input: {} },
    ],
  },
  results("c3", "c4"),
];
const observationIds = new Map([
  ["c1", "obs_1"],
  ["c2", "obs_2"],
  ["c3", "obs_3"],
  ["c4", "obs_4"],
]);
const system = "You are the worker.";
const full = estimateRequestTokens({ system, messages: history });

/** Every tool call id in assistant messages has exactly one tool_result in the next message. */
function pairsIntact(messages: readonly ModelMessage[]): boolean {
  return messages.every((message, index) => {
    if (message.role !== "assistant") return true;
    const answered = (messages[index + 1]?.content ?? []).flatMap((block) => (block.type === "tool_result" ? [block.toolCallId] : []));
    return message.content.every((block) => block.type !== "tool_call" || answered.filter((id) => id === block.id).length === 1);
  });
}

describe("fitContextBudget", () => {
  it("leaves a request that fits alone", () => {
    const compiled = fitContextBudget({ system, messages: history, budgetTokens: full, observationIds });
    expect(compiled.dropped).toEqual([]);
    expect(compiled.messages).toEqual(history);
    expect(compiled.estimatedTokens).toBe(full);
  });

  it("drops the oldest tool results first, only as many as needed, and says which in the context", () => {
    const before = structuredClone(history);
    const compiled = fitContextBudget({ system, messages: history, budgetTokens: full - 1500, observationIds });

    expect(compiled.dropped.map((entry) => entry.observationId)).toEqual(["obs_1", "obs_2"]);
    expect(compiled.dropped[0]).toMatchObject({ toolCallId: "c1", tool: "list_files" });
    expect(compiled.dropped[0]?.tokens).toBeGreaterThan(900);
    expect(compiled.estimatedTokens).toBeLessThanOrEqual(full - 1500);
    expect(compiled.estimatedTokens).toBe(estimateRequestTokens({ system, messages: compiled.messages }));
    expect(compiled.overBudget).toBe(false);

    // The task and the last turn are untouched; every call keeps its result.
    expect(compiled.messages[0]).toEqual(task);
    expect(compiled.messages[5]).toEqual(history[5]);
    expect(compiled.messages[6]?.content.slice(0, 2)).toEqual(history[6]?.content);
    expect(pairsIntact(compiled.messages)).toBe(true);

    const stub = compiled.messages[2]?.content[0];
    expect(stub).toMatchObject({ type: "tool_result", toolCallId: "c1" });
    expect(stub?.type === "tool_result" && stub.content).toMatch(/dropped to fit the context budget: the result of list_files \(obs_1\)/);
    const note = textOf(compiled.messages.at(-1)?.content ?? []);
    expect(note).toContain("2 earlier tool results (obs_1, obs_2) were dropped to fit the context budget");
    // The input was not modified.
    expect(history).toEqual(before);
  });

  it("never drops the last turn's results, and reports when even that is over budget", () => {
    const compiled = fitContextBudget({ system, messages: history, budgetTokens: 500, observationIds });
    expect(compiled.dropped.map((entry) => entry.toolCallId)).toEqual(["c1", "c2"]);
    expect(compiled.overBudget).toBe(true);
    expect(compiled.messages[6]?.content.slice(0, 2)).toEqual(history[6]?.content);
    expect(pairsIntact(compiled.messages)).toBe(true);
  });

  it("names a result by its call id when no observation id is known, and adds the note as its own message after an assistant turn", () => {
    const messages = history.slice(0, 4);
    const compiled = fitContextBudget({ system, messages, budgetTokens: estimateRequestTokens({ system, messages }) - 100 });
    expect(compiled.dropped).toMatchObject([{ toolCallId: "c1", observationId: null }]);
    expect(compiled.messages).toHaveLength(5);
    expect(compiled.messages.at(-1)?.role).toBe("user");
    expect(textOf(compiled.messages.at(-1)?.content ?? [])).toContain("1 earlier tool result (call c1) was dropped");
  });

  it("has nothing to drop when only the task and the last turn exist", () => {
    const messages = [task, call("c1"), results("c1")];
    const compiled = fitContextBudget({ system, messages, budgetTokens: 100 });
    expect(compiled.dropped).toEqual([]);
    expect(compiled.messages).toEqual(messages);
    expect(compiled.overBudget).toBe(true);
  });

  // Thinking is bound to everything before it: after an edit to history, a kept turn's thinking is refused
  // ("The block is bound to a different conversation"); the documented fix for trimmed history is to remove
  // thinking in the kept turns: https://platform.claude.com/docs/en/build-with-claude/preserved-thinking/prefix-checks
  it("takes the thinking out of every turn after the first one it edits, and leaves thinking before it as it was", () => {
    const thought = (label: string) => ({
      type: "thinking" as const,
      text: label,
      signature: `sig-${label}`,
      producer: { api: "anthropic-messages" as const, model: "claude-sonnet-5-5" },
    });
    const withThinking: ModelMessage[] = history.map((message, index) =>
      message.role === "assistant" ? { ...message, content: [thought(`t${index}`), ...message.content] } : message,
    );
    const compiled = fitContextBudget({ system, messages: withThinking, budgetTokens: full - 1500, observationIds });
    expect(compiled.dropped.map((entry) => entry.toolCallId)).toEqual(["c1", "c2"]);
    // The first edit is the result of c1 (message 2): the call before it keeps its thinking, every later turn loses it.
    expect(compiled.messages[1]?.content[0]).toEqual(thought("t1"));
    for (const index of [3, 5]) expect(compiled.messages[index]?.content.some((block) => block.type === "thinking")).toBe(false);
    expect(pairsIntact(compiled.messages)).toBe(true);
    // Nothing to drop, nothing edited: thinking goes back as it came.
    expect(fitContextBudget({ system, messages: withThinking, budgetTokens: 10 * full, observationIds }).messages).toEqual(withThinking);
  });
});
