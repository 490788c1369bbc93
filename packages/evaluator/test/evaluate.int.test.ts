import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type EvaluateJob, hashOf, type Observation, ScriptedProvider, StepSpec, type ToolCallRecord, Workspace } from "@rein/core";
import { createTestRuntime, type TestRuntime } from "@rein/core/testing";
import { evaluate } from "../src/evaluate.ts";
import { CLAIMS_RETRY_FEEDBACK } from "../src/verdict-policy.ts";

const observation = (id: string, tool: string, status: Observation["status"] = "ok"): Observation => ({
  id,
  callId: `call_${id}`,
  tool,
  status,
  content: `${tool} said something`,
  empty: false,
  flags: [],
  provenance: { tool, argsHash: hashOf(id), observedAt: "2026-11-30T10:00:00.000Z", cacheHit: false, replayed: false, trust: "tool" },
});
const call = (index: number, name: string, args: unknown, status: ToolCallRecord["status"] = "ok"): ToolCallRecord => ({
  index,
  name,
  argsHash: hashOf(args),
  fingerprint: hashOf({ tool: name, args }),
  status,
  resultHash: status === "ok" ? hashOf(`${name}${index}`) : undefined,
  observationId: `obs_${index}`,
  addressed: true,
});
const answerSpec = StepSpec.parse({ title: "Diagnose the 500s", objective: "State the cause with cited evidence.", output_contract: { description: "diagnosis", format: "answer" } });
const answer = {
  answer: "the pool is exhausted",
  claims: [
    { text: "the pool is at 50/50", evidence: ["obs_metrics"] },
    { text: "a cosmic ray flipped a bit", evidence: ["obs_nowhere"] },
  ],
  gaps: [],
};

function job(extra: Partial<EvaluateJob> = {}): EvaluateJob {
  return {
    runId: "run_e",
    stepId: "s2",
    attempt: 1,
    spec: answerSpec,
    result: {
      schemaVersion: 1,
      runId: "run_e",
      stepId: "s2",
      attempt: 1,
      status: "completed",
      output: answer,
      summary: answer.answer,
      claims: answer.claims,
      observations: [],
      toolCalls: [],
      fingerprints: [],
      usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
      turns: 1,
    },
    knownEvidenceIds: ["obs_metrics"],
    priorFingerprints: [],
    priorFailedFingerprints: [],
    goal: "Why has payment-api returned 500s?",
    risks: [],
    ...extra,
  };
}

describe("evaluate()", () => {
  let runtime: TestRuntime;
  let deps: Parameters<typeof evaluate>[1];
  beforeEach(async () => {
    runtime = await createTestRuntime();
    deps = { trace: runtime.trace, workspace: await Workspace.forRun(runtime.config.workspaceRoot, "run_e"), allowedCommands: ["node"], now: () => new Date("2026-11-30T10:00:00Z") };
  });
  afterEach(async () => runtime.cleanup());

  it("retries an answer with an unsupported claim once, naming it, then delivers it with the claim in gaps", async () => {
    const first = await evaluate(job(), deps);
    expect(first.decision).toBe("retry");
    expect(first.feedback).toContain('"a cosmic ray flipped a bit" (unsupported)');
    expect(first.claims?.map((claim) => claim.status)).toEqual(["supported", "unsupported"]);

    const second = await evaluate(job({ attempt: 2, feedback: first.feedback, priorFingerprints: [[]] }), deps);
    expect(second.decision).toBe("done");
    expect(second.answer?.claims.map((claim) => claim.text)).toEqual(["the pool is at 50/50"]);
    expect(second.answer?.gaps).toEqual(["not established (no observation of this run backs it): a cosmic ray flipped a bit"]);
    expect(first.feedback?.startsWith(CLAIMS_RETRY_FEEDBACK)).toBe(true);
    const traced = (await runtime.trace.read("run_e")).map((event) => event.kind);
    expect(traced.filter((kind) => kind === "claims.checked")).toHaveLength(2);
    expect(traced.filter((kind) => kind === "fingerprints.recorded")).toHaveLength(2);
  });

  it("a step that passes after a retry carries a resolved_step lesson naming what failed and the new action", async () => {
    const spec = StepSpec.parse({ title: "Read pool metrics", objective: "Query the pool metrics.", tools: ["query_metrics"] });
    const failing = call(0, "query_metrics", { metric: "pool" }, "error");
    const working = call(0, "query_metrics", { metric: "db_pool_in_use" });
    const verdict = await evaluate(
      job({
        spec,
        attempt: 2,
        feedback: "the previous attempt ended failed: unknown metric pool",
        priorFingerprints: [[failing.fingerprint]],
        priorFailedFingerprints: [failing.fingerprint],
        result: { ...job().result, attempt: 2, output: "pool 50/50", summary: "pool 50/50", claims: [], observations: [observation("obs_0", "query_metrics")], toolCalls: [working], fingerprints: [working.fingerprint] },
      }),
      deps,
    );
    expect(verdict.decision).toBe("continue");
    expect(verdict.lesson).toMatchObject({
      kind: "resolved_step",
      signature: "Why has payment-api returned 500s? — step: Read pool metrics",
      failed: "attempt 1 failed: the previous attempt ended failed: unknown metric pool",
      worked: "attempt 2: pool 50/50 (new actions: query_metrics)",
      fingerprints: [failing.fingerprint, working.fingerprint],
    });
  });

  it("asks the judge about flagged risks once the rules pass, and escalates when one materialized", async () => {
    const risk = "a restart hides the cause";
    const judge = new ScriptedProvider({ judge: [{ turns: [{ output: { verdict: "pass", reasons: ["the restart ran before the cause was known"], risks_hit: [risk, "an invented risk"] } }] }] });
    const backed = { ...answer, claims: [answer.claims[0] as (typeof answer.claims)[number]] };
    const verdict = await evaluate(job({ risks: [risk], result: { ...job().result, output: backed, claims: backed.claims } }), { ...deps, judge });
    expect(verdict.decision).toBe("escalate");
    expect(verdict.reasons).toEqual([`a risk the planner flagged materialized: ${risk}`]);
    expect(JSON.stringify(judge.requests[0]?.messages)).toContain(`Flagged risks:\\n- ${risk}`);
  });

  it("does not call the judge when the rules already decide a retry", async () => {
    const judge = new ScriptedProvider({ judge: [] });
    const verdict = await evaluate(job({ risks: ["anything"] }), { ...deps, judge });
    expect(verdict.decision).toBe("retry");
    expect(judge.requests).toHaveLength(0);
  });
});
