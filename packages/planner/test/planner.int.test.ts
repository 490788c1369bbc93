import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PlanJob } from "@rein/contracts/messages";
import { ScriptedProvider } from "@rein/models";
import { testRuntimePerTest } from "@rein/runtime/testing";
import { plan } from "../src/planner.ts";

const job: PlanJob = {
  runId: "run_p",
  planNo: 2,
  context: {
    goal: "Why has payment-api returned 500s for the last 10 minutes?",
    grantedTools: ["search_logs", "query_metrics"],
    completedSteps: [{ stepId: "s1", title: "Search the logs", decision: "replan", summary: "the logs rotated" }],
    evidence: [{ id: "obs_1", summary: "query_metrics: db_pool_in_use 50/50" }],
    lastVerdict: { decision: "replan", reasons: ["check cannot run as written"] },
    lessons: [],
    instruction: "look at the pool first",
    knownEvidenceIds: ["obs_1"],
  },
};
const goalRestated = {
  current_step: {
    title: "Answer the question",
    objective: "Why has payment-api returned 500s for the last 10 minutes?",
    tools: ["query_metrics"],
  },
};
const concrete = {
  current_step: {
    title: "Read pool metrics",
    objective: "Query db_pool_in_use and db_pool_waiting for the last 15 minutes.",
    tools: ["query_metrics"],
    evidence_ids: ["obs_1"],
  },
};

describe("plan()", () => {
  const fixture = testRuntimePerTest({ beforeEach, afterEach });

  it("shows the digest, verdict, instruction and lessons, re-asks a step that restates the goal, and traces the lessons used", async () => {
    const provider = new ScriptedProvider({ planner: [{ turns: [{ output: goalRestated }, { output: concrete }] }] });
    const outcome = await plan(job, {
      trace: fixture.runtime.trace,
      providerFor: () => provider,
      lessonsFor: async () => [
        { id: "lesson_a", text: 'For "payment-api 500s": restarts only bought time. What worked: find the held connections.' },
      ],
    });
    expect(outcome.ok && outcome.plan.current_step?.title).toBe("Read pool metrics");
    expect(outcome.ok && outcome.lessonsUsed.map((lesson) => lesson.id)).toEqual(["lesson_a"]);
    const [first, repair] = provider.requests;
    const shown = JSON.stringify(first?.messages);
    for (const expected of [
      "Completed steps: 1",
      "Latest verdict: replan",
      "Replan: the last step did not work",
      "Instruction from a person: look at the pool first",
    ]) {
      expect(shown).toContain(expected);
    }
    // Evidence and lessons are outside text: each inside a fence of its own nonce.
    expect(shown).toMatch(/- obs_1: <<<untrusted-data ([a-p]{16})>>>query_metrics: db_pool_in_use 50\/50[^<]*<<<end-untrusted-data \1>>>/);
    expect(shown).toMatch(
      /- lesson_a: <<<untrusted-data ([a-p]{16})>>>For \\"payment-api 500s\\": restarts only bought time[^<]*<<<end-untrusted-data \1>>>/,
    );
    expect(JSON.stringify(repair?.messages.at(-1))).toContain("only restates the goal");
    const kinds = (await fixture.runtime.trace.read("run_p")).map((event) => ({ kind: event.kind, payload: event.payload }));
    expect(kinds).toContainEqual({ kind: "lesson.used", payload: { lessons: ["lesson_a"] } });
    expect(kinds.filter((event) => event.kind === "model.output_invalid")).toHaveLength(1);
  });

  it("gives up with a reason after the model keeps restating the goal", async () => {
    const provider = new ScriptedProvider({ planner: [{ repeatLast: true, turns: [{ output: goalRestated }] }] });
    const outcome = await plan(job, { trace: fixture.runtime.trace, providerFor: () => provider });
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.reason).toContain("only restates the goal");
  });

  it("leaves a Redis failure to the queue's retry instead of failing the plan (a cluster failover aborts a transaction)", async () => {
    const provider = new ScriptedProvider({ planner: [{ turns: [{ output: concrete }] }] });
    const failing = Object.create(fixture.runtime.trace, {
      append: { value: async () => Promise.reject(new Error("EXECABORT Transaction discarded because of previous errors.")) },
    });
    await expect(plan(job, { trace: failing, providerFor: () => provider })).rejects.toThrow(/EXECABORT/);
  });

  it("reports what a failed planning attempt and its repairs spent, so the run's budget counts it", async () => {
    const provider = new ScriptedProvider({ planner: [{ repeatLast: true, turns: [{ output: goalRestated }] }] });
    const outcome = await plan(job, { trace: fixture.runtime.trace, providerFor: () => provider });
    const calls = (await fixture.runtime.trace.read("run_p")).filter((event) => event.kind === "model.responded");
    expect(calls).toHaveLength(3);
    const spent = calls.reduce((total, event) => total + (event.usage?.inputTokens ?? 0) + (event.usage?.outputTokens ?? 0), 0);
    expect(spent).toBeGreaterThan(0);
    expect(outcome.usage.inputTokens + outcome.usage.outputTokens).toBe(spent);
  });
});
