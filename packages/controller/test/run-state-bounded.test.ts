import { describe, expect, it } from "vitest";
import { hashOf, zeroUsage } from "@rein/contracts";
import type { RunState } from "@rein/contracts/run";
import type { Observation } from "@rein/contracts/calls";
import { transition } from "../src/transition/transition.ts";
import { baseState, event, now, planned, result, settings, verdict } from "@rein/controller/testing";

const OBSERVATIONS_PER_STEP = 3;

const observation = (id: string, contentBytes: number): Observation => ({
  id,
  callId: `call_${id}`,
  tool: "read_file",
  status: "ok",
  content: `line one of ${id}\n${"x".repeat(contentBytes)}`,
  empty: false,
  flags: [],
  provenance: { tool: "read_file", argsHash: hashOf(id), observedAt: now.toISOString(), cacheHit: false, replayed: false, trust: "tool" },
});

/** Plans, runs and evaluates `steps` steps whose observations and output are `outputBytes` long; the largest state written on the way. */
function largestStateAfter(steps: number, outputBytes: number): number {
  let state: RunState = baseState({ status: "planning" });
  let largest = 0;
  const apply = (next: ReturnType<typeof transition>) => {
    expect(next.applied).toBe(true);
    state = next.state;
    largest = Math.max(largest, Buffer.byteLength(JSON.stringify(state)));
  };
  for (let index = 1; index <= steps; index += 1) {
    const stepId = `s${index}`;
    apply(
      transition(
        state,
        event("plan.ready", { eventId: `planned-${index}`, planNo: index, plan: planned, usage: zeroUsage(), lessonsUsed: [] }),
        settings,
      ),
    );
    const observations = Array.from({ length: OBSERVATIONS_PER_STEP }, (_, call) => observation(`obs_${index}_${call}`, outputBytes));
    const finished = result("completed", { stepId, output: "y".repeat(outputBytes), summary: "z".repeat(outputBytes), observations });
    apply(transition(state, event("step.finished", { eventId: `finished-${index}`, stepId, attempt: 1, result: finished }), settings));
    apply(
      transition(
        state,
        event("verdict.ready", { eventId: `verdict-${index}`, stepId, attempt: 1, verdict: { ...verdict("continue"), stepId } }),
        settings,
      ),
    );
  }
  return largest;
}

describe("RunState size", () => {
  it("does not grow with the size of what steps observed and returned: evidence and results are kept as references", () => {
    const small = largestStateAfter(10, 10);
    const large = largestStateAfter(10, 100_000);
    // Per step: one-line observation summaries, a capped step summary and a text step's capped output evidence
    // (400 characters), the last two also in the next plan job's digest; a copy of any output would add ~MBs.
    expect(large - small).toBeLessThan(10 * (2 * (500 + 400) + OBSERVATIONS_PER_STEP * 200));
  });

  it("keeps no copy of a step's result in its outbox: the evaluate job takes it from the step.finished event", () => {
    const state = baseState({ status: "executing", steps: [] });
    const planned1 = transition(
      { ...state, status: "planning" },
      event("plan.ready", { planNo: 1, plan: planned, usage: zeroUsage(), lessonsUsed: [] }),
      settings,
    ).state;
    const finished = transition(
      planned1,
      event("step.finished", { stepId: "s1", attempt: 1, result: result("completed", { output: "secret-sized output" }) }),
      settings,
    );
    expect(finished.state.outbox.map((effect) => effect.type)).toEqual(["enqueue_evaluate"]);
    expect(JSON.stringify(finished.state.outbox)).not.toContain("secret-sized output");
  });
});
