import { describe, expect, it } from "vitest";
import { costOf, priceFor, withCost } from "../src/pricing.ts";
import { parseJsonText } from "../src/json-from-model-text.ts";
import { isStrictCompatible } from "../src/structured-output.ts";
import { estimateRequestTokens, estimateTextTokens } from "../src/token-estimate.ts";

const usage = { inputTokens: 1_000_000, outputTokens: 500_000, cacheReadTokens: 2_000_000, cacheWriteTokens: 100_000, costUsd: 0 };
const price = { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 };

describe("pricing", () => {
  it("prices each kind of token per million", () => {
    expect(costOf(usage, price)).toBeCloseTo(3 + 7.5 + 0.6 + 0.375, 10);
  });

  it("finds prices by provider/model and fills costUsd only with a price", () => {
    const prices = { "anthropic/claude-x": price };
    expect(priceFor(prices, "anthropic", "claude-x")).toBe(price);
    expect(priceFor(prices, "openai", "claude-x")).toBeUndefined();
    expect(withCost(usage, undefined).costUsd).toBe(0);
    expect(withCost(usage, price).costUsd).toBeCloseTo(11.475, 10);
  });
});

describe("token estimate", () => {
  it("rounds text up at four characters a token", () => {
    expect(estimateTextTokens("")).toBe(0);
    expect(estimateTextTokens("abcde")).toBe(2);
  });

  it("grows with messages, tools and output schema", () => {
    const base = { system: "sys", messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "x".repeat(400) }] }] };
    const plain = estimateRequestTokens(base);
    expect(plain).toBeGreaterThanOrEqual(100);
    const withTool = estimateRequestTokens({ ...base, tools: [{ name: "t", description: "d", inputSchema: { type: "object" } }] });
    expect(withTool).toBeGreaterThan(plain);
  });
});

describe("structured output helpers", () => {
  it("accepts only schemas OpenAI strict mode takes", () => {
    const closed = { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false };
    expect(isStrictCompatible(closed)).toBe(true);
    expect(isStrictCompatible({ ...closed, required: [] })).toBe(false);
    expect(isStrictCompatible({ ...closed, additionalProperties: true })).toBe(false);
    expect(isStrictCompatible({ ...closed, properties: { a: { oneOf: [{ type: "string" }] } } })).toBe(false);
  });

  it("finds JSON in fenced or chatty text", () => {
    expect(parseJsonText('{"a":1}')).toEqual({ a: 1 });
    expect(parseJsonText('Sure:\n```json\n{"a":2}\n```')).toEqual({ a: 2 });
    expect(parseJsonText('Here it is: {"a":3} hope it helps')).toEqual({ a: 3 });
    expect(parseJsonText("no json here")).toBeUndefined();
  });
});
