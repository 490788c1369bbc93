import { describe, expect, it } from "vitest";
import { fanOutJoinCheck } from "../../src/chaos/chaos-checks.ts";

describe("the chaos suite's fan-out check", () => {
  it("passes when every fan-out that ended done joined exactly once, and says how many it checked", () => {
    const check = fanOutJoinCheck([
      { runId: "run_a", done: true, joins: 1 },
      { runId: "run_b", done: false, joins: 0 },
    ]);
    expect(check).toMatchObject({ passed: true, findings: [] });
    expect(check.name).toContain("1 of 2 fan-outs ended done");
  });

  it("fails a fan-out whose group joined twice after its events were redelivered", () => {
    const check = fanOutJoinCheck([{ runId: "run_a", done: true, joins: 2 }]);
    expect(check.passed).toBe(false);
    expect(check.findings).toEqual(["run_a: its group joined 2 times"]);
  });

  it("fails when fan-outs were submitted and none ended done, rather than passing with nothing checked", () => {
    const check = fanOutJoinCheck([
      { runId: "run_a", done: false, joins: 0 },
      { runId: "run_b", done: false, joins: 1 },
    ]);
    expect(check.passed).toBe(false);
    expect(check.findings).toEqual(["none of the 2 fan-out runs ended done: no join was checked"]);
  });
});
