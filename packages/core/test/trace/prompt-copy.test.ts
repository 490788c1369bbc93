import { describe, expect, it } from "vitest";
import { hashOf } from "../../src/canonical/canonical-json.ts";
import { assemblePrompt, splitPrompt } from "../../src/trace/prompt-copy.ts";

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
});
