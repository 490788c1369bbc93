import { describe, expect, it } from "vitest";
import { toolCallBlock } from "../src/tool-arguments.ts";

describe("toolCallBlock", () => {
  it("parses a complete JSON object and treats empty arguments as none", () => {
    expect(toolCallBlock("c1", "t", '{"a":1}')).toEqual({ type: "tool_call", id: "c1", name: "t", input: { a: 1 } });
    expect(toolCallBlock("c2", "t", "")).toEqual({ type: "tool_call", id: "c2", name: "t", input: {} });
  });

  it("never presents unparseable or non-object arguments as a valid call", () => {
    expect(toolCallBlock("c3", "t", '{"a":', { invalidReason: "max_tokens" }).incomplete).toEqual({
      reason: "max_tokens",
      rawArguments: '{"a":',
    });
    expect(toolCallBlock("c4", "t", "{oops}").incomplete?.reason).toBe("invalid_json");
    expect(toolCallBlock("c5", "t", "[1,2]").incomplete?.reason).toBe("not_an_object");
  });

  it("distrusts arguments of a call known to be cut even when they parse", () => {
    expect(toolCallBlock("c6", "t", '{"a":1}', { cutReason: "max_tokens" })).toEqual({
      type: "tool_call",
      id: "c6",
      name: "t",
      input: {},
      incomplete: { reason: "max_tokens", rawArguments: '{"a":1}' },
    });
  });
});
