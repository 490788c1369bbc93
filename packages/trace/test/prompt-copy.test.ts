import { describe, expect, it } from "vitest";
import { canonicalJson, hashOf } from "@rein/contracts";
import { assemblePrompt, expandPromptCopy, PromptChain, type PromptCopy, promptHash, splitPrompt } from "../src/prompt-copy.ts";

const request = {
  system: "You are a worker.",
  messages: [
    { role: "user" as const, content: [{ type: "text" as const, text: "Fix add()" }] },
    { role: "assistant" as const, content: [{ type: "tool_call" as const, id: "c1", name: "read_file", input: { path: "src/add.js" } }] },
  ],
  tools: [{ name: "read_file", description: "reads", inputSchema: { type: "object" } }],
};

describe("prompt copy", () => {
  it("reassembles to the exact input hash model.called records", () => {
    const { copy, blobs } = splitPrompt(request);
    const assembled = assemblePrompt(copy, Object.fromEntries(blobs));
    expect(hashOf(assembled)).toBe(hashOf({ system: request.system, messages: request.messages, tools: request.tools, output: undefined }));
  });

  it("stores a message repeated across turns once", () => {
    const first = splitPrompt({ ...request, messages: request.messages.slice(0, 1) });
    const second = splitPrompt(request);
    expect(second.copy.messages[0]).toBe(first.copy.messages[0]);
    expect(second.blobs.size).toBe(first.blobs.size + 1);
  });

  it("says when a blob is missing instead of inventing a prompt", () => {
    const { copy, blobs } = splitPrompt(request);
    const partial = Object.fromEntries([...blobs].filter(([id]) => id !== copy.messages[1]));
    expect(assemblePrompt(copy, partial)).toBeUndefined();
  });

  it.each([
    ["the system prompt", (copy: PromptCopy) => copy.system, "42", /is not the system prompt \(a string\)/],
    ["a message", (copy: PromptCopy) => copy.messages[0], '{"role":"narrator","content":[]}', /is not a model message[\s\S]*role/],
    ["the tool list", (copy: PromptCopy) => copy.tools, '[{"name":"read_file"}]', /is not the list of tools offered[\s\S]*description/],
    ["a message that is not JSON", (copy: PromptCopy) => copy.messages[1], "{oops", /is not JSON; expected a model message/],
  ])("refuses a stored blob that is not %s it is named as", (_what, partOf, stored, message) => {
    const { copy, blobs } = splitPrompt(request);
    const tampered = { ...Object.fromEntries(blobs), [String(partOf(copy))]: stored };
    expect(() => assemblePrompt(copy, tampered)).toThrow(
      expect.objectContaining({ code: "contract_invalid", message: expect.stringMatching(message) }),
    );
  });

  it("names in a chained call only the messages new since the call before, and expands back to the whole list", () => {
    const chain = new PromptChain();
    const firstWhole = splitPrompt({ ...request, messages: request.messages.slice(0, 1) }).copy;
    const first = chain.link(firstWhole);
    expect(first).toEqual(firstWhole);
    const secondWhole = splitPrompt(request).copy;
    const second = chain.link(secondWhole);
    expect(second.messages).toEqual([secondWhole.messages[1]]);
    expect(second.after).toEqual({ inputHash: promptHash(first), kept: 1 });

    const earlier = new Map([[promptHash(first), firstWhole.messages]]);
    expect(expandPromptCopy(second, earlier)).toEqual(secondWhole);
    // Without its predecessor the copy cannot be expanded, and is not assembled as if it were whole.
    expect(expandPromptCopy(second, new Map())).toBeUndefined();
    expect(assemblePrompt(second, Object.fromEntries(splitPrompt(request).blobs))).toBeUndefined();
  });

  it("names the messages a call repeats from the call before by their ids, as a whole split would, and the new ones afresh", () => {
    const next = {
      role: "user" as const,
      content: [{ type: "tool_result" as const, toolCallId: "c1", content: "[observation obs_1]\nexport const add = (a, b) => a + b;" }],
    };
    const first = splitPrompt(request, "run_known");
    const known = { messages: request.messages, ids: first.copy.messages as `sha256:${string}`[] };
    // A new array of the same message objects, as each turn's compiled context is.
    const chained = splitPrompt({ ...request, messages: [...request.messages, next] }, "run_known", known);
    expect(chained.copy).toEqual(splitPrompt({ ...request, messages: [...request.messages, next] }).copy);
    expect(chained.blobs.get(chained.copy.messages[2] as string)).toBe(canonicalJson(next));
    // A history rewritten from its first message shares nothing with the call before.
    const rewritten = [
      { role: "user" as const, content: [{ type: "text" as const, text: "Fix add() (compacted)" }] },
      ...request.messages.slice(1),
    ];
    expect(splitPrompt({ ...request, messages: rewritten }, "run_known", known).copy).toEqual(
      splitPrompt({ ...request, messages: rewritten }).copy,
    );
  });

  it("covers the predecessor in a chained call's hash: the same new messages after another history hash differently", () => {
    const tail = request.messages.slice(1);
    const viaA = new PromptChain();
    viaA.link(splitPrompt({ ...request, messages: request.messages.slice(0, 1) }).copy);
    const a = viaA.link(splitPrompt(request).copy);
    const viaB = new PromptChain();
    const other = { role: "user" as const, content: [{ type: "text" as const, text: "Fix sub()" }] };
    viaB.link(splitPrompt({ ...request, messages: [other] }).copy);
    const b = viaB.link(splitPrompt({ ...request, messages: [other, ...tail] }).copy);
    expect(a.messages).toEqual(b.messages);
    expect(promptHash(a)).not.toBe(promptHash(b));
  });

  it("starts over with a whole copy when the history was rewritten from its first message (compaction)", () => {
    const chain = new PromptChain();
    chain.link(splitPrompt(request).copy);
    const rewritten: PromptCopy = chain.link(
      splitPrompt({ ...request, messages: [{ role: "user", content: [{ type: "text", text: "Fix add() (compacted)" }] }] }).copy,
    );
    expect(rewritten.after).toBeUndefined();
    expect(rewritten.messages).toHaveLength(1);
  });
});
