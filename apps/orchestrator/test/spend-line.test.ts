import { describe, expect, it } from "vitest";
import { spendLine } from "../src/cli/spend-line.ts";

describe("what a run spent, as rein run and rein status print it", () => {
  it("shows the prompt cache's reads and writes beside the cost, which they are billed into", () => {
    const usage = { inputTokens: 900, outputTokens: 300, cacheReadTokens: 12_400, cacheWriteTokens: 3_100, costUsd: 0.0123 };
    expect(spendLine({ spent: { steps: 2, tokens: 1_200, costUsd: 0.0123 }, usage })).toBe(
      "2 steps, 1200 tokens (prompt cache: 12400 read, 3100 written), $0.0123",
    );
  });

  it("says nothing of a cache that was not used", () => {
    const usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 };
    expect(spendLine({ spent: { steps: 1, tokens: 15, costUsd: 0 }, usage })).toBe("1 step, 15 tokens, $0.0000");
  });
});
