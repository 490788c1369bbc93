import { describe, expect, it } from "vitest";
import { hashOf, type ToolCallRecord } from "@rein/contracts";
import { detectLoop, loopedByFingerprints } from "../src/loop-detector.ts";

/** "A" is a call: tool a, fixed args; "A'" is tool a with changed args; ":x" names the result; "!" marks a failure. */
function calls(...specs: string[]): ToolCallRecord[] {
  return specs.map((spec, index) => {
    const [call = "", result = "r"] = spec.replace("!", "").split(":");
    const failed = spec.includes("!");
    return {
      index,
      name: call.toLowerCase().replace("'", ""),
      argsHash: hashOf({ call }),
      fingerprint: hashOf({ tool: call.replace("'", ""), args: call }),
      status: failed ? "error" : "ok",
      resultHash: failed ? undefined : hashOf(result),
      observationId: `obs_${index}`,
      addressed: true,
    };
  });
}
const fp = (call: string) => hashOf({ tool: call.replace("'", ""), args: call });

describe("detectLoop", () => {
  const table: {
    name: string;
    calls: ToolCallRecord[];
    priorFailed?: string[];
    window?: number;
    expected: { kind: string; fingerprint: string } | undefined;
  }[] = [
    {
      name: "the same call 3× with the same result is no progress",
      calls: calls("A", "A", "A"),
      expected: { kind: "no_progress", fingerprint: fp("A") },
    },
    {
      name: "the same call 3× with one result repeated is a repeat",
      calls: calls("A:1", "A:1", "A:2"),
      expected: { kind: "repeat", fingerprint: fp("A") },
    },
    {
      name: "the same call 3× with a new result each time is progress",
      calls: calls("A:1", "B", "A:2", "B:2", "A:3"),
      expected: undefined,
    },
    { name: "the same call twice is not a loop", calls: calls("A", "A"), expected: undefined },
    { name: "the same tool with changed args is not a loop", calls: calls("A", "A'", "A''", "A'''"), expected: undefined },
    {
      name: "3 occurrences spread wider than the window are not a loop",
      calls: calls("A", "B:1", "C", "D", "A", "E", "F", "G", "A"),
      window: 8,
      expected: undefined,
    },
    {
      name: "3 occurrences inside a window are a loop even with other calls between",
      calls: calls("A", "B", "A", "C", "A"),
      expected: { kind: "no_progress", fingerprint: fp("A") },
    },
    {
      name: "A-B-A-B with the same results is a cycle",
      calls: calls("A", "B", "A", "B"),
      expected: { kind: "cycle", fingerprint: fp("A") },
    },
    {
      name: "A-B-A-B in the middle of a step is a cycle",
      calls: calls("C", "A", "B", "A", "B", "D"),
      expected: { kind: "cycle", fingerprint: fp("A") },
    },
    { name: "A-B-A-B whose results changed is progress", calls: calls("A:1", "B:1", "A:2", "B:2"), expected: undefined },
    { name: "A-A-B-B is not a cycle", calls: calls("A", "A", "B", "B"), expected: undefined },
    {
      name: "a call that failed before the retry and fails again",
      calls: calls("B", "A!"),
      priorFailed: [fp("A")],
      expected: { kind: "repeat_after_retry", fingerprint: fp("A") },
    },
    { name: "a call that failed before the retry and now succeeds", calls: calls("A"), priorFailed: [fp("A")], expected: undefined },
    { name: "a failing call that did not fail before the retry", calls: calls("A!"), priorFailed: [fp("B")], expected: undefined },
    { name: "the failing call with changed args after a retry", calls: calls("A'!"), priorFailed: [fp("A")], expected: undefined },
  ];
  for (const row of table) {
    it(row.name, () => {
      expect(detectLoop(row.calls, new Set(row.priorFailed ?? []), { window: row.window })).toEqual(row.expected);
    });
  }
});

describe("loopedByFingerprints (earlier attempts, no results kept)", () => {
  it.each([
    [["A", "A", "A"], true],
    [["A", "B", "A", "B"], true],
    [["A", "B", "A"], false],
    [["A", "A'", "A''"], false],
  ])("%j → %s", (sequence, expected) => {
    expect(loopedByFingerprints(sequence.map(fp))).toBe(expected);
  });
});
