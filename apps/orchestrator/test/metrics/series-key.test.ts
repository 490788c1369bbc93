import { describe, expect, it } from "vitest";
import { parseSeriesKey, seriesKey } from "../../src/metrics/trace-increments.ts";

describe("a metrics series key", () => {
  it("reads back the name and labels it was written with", () => {
    expect(parseSeriesKey(seriesKey("tool_calls", { tool: "read_file", outcome: "ok" }))).toEqual({
      metric: "tool_calls",
      labels: { tool: "read_file", outcome: "ok" },
    });
  });

  it.each(["not json", '["tool_calls"]', '["tool_calls", {"tool": 3}]', '{"metric": "x"}'])(
    "refuses a field that is not one: %s",
    (field) => {
      expect(() => parseSeriesKey(field)).toThrow(
        expect.objectContaining({
          code: "contract_invalid",
          message: expect.stringContaining("expected the JSON [metric, {label: value}]"),
        }),
      );
    },
  );
});
