import { describe, expect, it } from "vitest";
import { traceEventOf } from "@rein/runtime/testing";
import { incrementsOf, parseSeriesKey } from "../../src/metrics/trace-increments.ts";

const outcomeOf = (aborted: boolean | undefined) => {
  const event = traceEventOf("model.failed", {
    role: "worker",
    provider: "claude",
    model: "claude-sonnet-5-5",
    error: aborted ? "shutdown: grace period over, giving the job back" : "overloaded",
    ...(aborted === undefined ? {} : { aborted }),
  });
  const [key] = incrementsOf(event).find(([series]) => parseSeriesKey(series).metric === "model_calls") ?? [];
  return key === undefined ? undefined : parseSeriesKey(key).labels.outcome;
};

describe("rein_model_calls_total's outcome", () => {
  it("counts a call its caller stopped (a shutdown handing the job back, a cancel) as aborted, not failed", () => {
    expect(outcomeOf(true)).toBe("aborted");
  });

  it("counts the provider's failure as failed", () => {
    expect(outcomeOf(undefined)).toBe("failed");
  });
});
