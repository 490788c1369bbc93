import { describe, expect, it } from "vitest";
import { bm25Scores, tokenize } from "../../src/lessons/bm25.ts";

describe("bm25Scores", () => {
  const documents = [
    "payment-api returns 500s: database connection pool saturated",
    "fix the add() function so node --test passes",
    "payment-api deploy rolled back after a bad config",
  ];

  it("ranks the document sharing the rarest query words first", () => {
    const scores = bm25Scores("why does payment-api time out on its database pool?", documents);
    expect(scores[0]).toBeGreaterThan(scores[2] ?? 0);
    expect(scores[2]).toBeGreaterThan(0);
    expect(scores[1]).toBe(0);
  });

  it("scores 0 for a document with no word in common, and for an empty corpus", () => {
    expect(bm25Scores("kubernetes ingress", documents)).toEqual([0, 0, 0]);
    expect(bm25Scores("anything", [])).toEqual([]);
  });

  it("tokenizes to lower-case words, dropping short and common ones", () => {
    expect(tokenize("Why has the payment-API returned 500s?")).toEqual(["payment", "api", "returned", "500s"]);
  });
});
