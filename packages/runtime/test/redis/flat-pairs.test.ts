import { describe, expect, it } from "vitest";
import { flatPairs } from "../../src/redis/flat-pairs.ts";

describe("a flat Redis reply of keys and values", () => {
  it("reads as pairs in order", () => {
    expect(flatPairs(["run_b", "20", "run_a", "10"], "the run index")).toEqual([
      ["run_b", "20"],
      ["run_a", "10"],
    ]);
    expect(flatPairs([], "the run index")).toEqual([]);
  });

  it("refuses a key without its value, naming what was read", () => {
    expect(() => flatPairs(["seq", "1", "event"], "a trace entry of run run_x")).toThrow(
      expect.objectContaining({
        code: "contract_invalid",
        message: 'a trace entry of run run_x: "event" has no value; expected keys and values in turn',
      }),
    );
  });
});
