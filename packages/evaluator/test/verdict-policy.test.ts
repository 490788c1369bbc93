import { describe, expect, it } from "vitest";
import { hashOf } from "@rein/contracts";
import { CHANGE_STRATEGY_FEEDBACK, CLAIMS_RETRY_FEEDBACK, decideVerdict, type Findings } from "../src/verdict-policy.ts";

const base: Findings = {
  attempt: 1,
  maxAttempts: 3,
  status: "completed",
  loopedBefore: false,
  failedChecks: [],
  unrunnableChecks: [],
  wrongSurface: false,
  claims: [],
  judgeMissing: false,
  denied: [],
  unknownOutcomes: [],
};
const loop = { finding: { kind: "no_progress" as const, fingerprint: hashOf("a") }, description: "read_file was called 3 times" };
const failedCheck = { check: "`node --test` exits 0", passed: false, detail: "exited 1" };
const answer = {
  answer: "pool saturated",
  claims: [
    { text: "pool at 50/50", evidence: ["obs_1"] },
    { text: "a cosmic ray", evidence: [] },
  ],
  gaps: [],
};
const unsupported = { text: "a cosmic ray", status: "unsupported" as const, evidence: [] };
const supported = { text: "pool at 50/50", status: "supported" as const, evidence: ["obs_1"] };
const judge = (verdict: "pass" | "fail" | "unsure", risks_hit: string[] = []) => ({ verdict, reasons: [`judge: ${verdict}`], risks_hit });

describe("decideVerdict: the verdict table, row by row", () => {
  const rows: { row: string; findings: Partial<Findings>; decision: string; feedback?: string }[] = [
    {
      row: "0 a side effect's outcome is unknown, though the step completed",
      findings: { unknownOutcomes: ['outcome unknown after a crash: run_command {"command":"deploy"}'] },
      decision: "escalate",
    },
    {
      row: "0 before a retry the failure would otherwise get",
      findings: { status: "failed", unknownOutcomes: ["outcome unknown after a crash: send_email"] },
      decision: "escalate",
    },
    {
      row: "0 with evaluator.unknownOutcome replan: the planner is told to check the action first",
      findings: { status: "failed", unknownOutcomes: ["outcome unknown after a crash: send_email"], unknownOutcome: "replan" },
      decision: "replan",
      feedback: "check whether it happened",
    },
    {
      row: "0 with evaluator.unknownOutcome fail",
      findings: { unknownOutcomes: ["outcome unknown after a crash: send_email"], unknownOutcome: "fail" },
      decision: "fail",
    },
    {
      row: "0 a child under replan goes back to its parent, which decides",
      findings: { unknownOutcomes: ["outcome unknown after a crash: send_email"], unknownOutcome: "replan", child: true },
      decision: "fail",
    },
    {
      row: "1 loop again after a retry",
      findings: { status: "budget_exhausted", loop, loopedBefore: true, attempt: 2 },
      decision: "escalate",
    },
    { row: "1 loop on the last attempt", findings: { status: "budget_exhausted", loop, attempt: 3 }, decision: "escalate" },
    { row: "2 first loop", findings: { status: "budget_exhausted", loop }, decision: "retry", feedback: CHANGE_STRATEGY_FEEDBACK },
    {
      row: "2 first loop with failing checks",
      findings: { loop, failedChecks: [failedCheck] },
      decision: "retry",
      feedback: CHANGE_STRATEGY_FEEDBACK,
    },
    { row: "a loop in an attempt that passed does not block it", findings: { loop }, decision: "continue" },
    {
      row: "3 a check that cannot run",
      findings: { unrunnableChecks: [{ check: "make test", passed: false, detail: "refused" }] },
      decision: "replan",
    },
    { row: "3 failed only outside its tools", findings: { status: "failed", wrongSurface: true }, decision: "replan" },
    {
      row: "5 did not complete, attempts left",
      findings: { status: "failed", error: "model error" },
      decision: "retry",
      feedback: "the previous attempt ended failed",
    },
    { row: "6 did not complete, none left", findings: { status: "failed", attempt: 3 }, decision: "escalate" },
    {
      row: "7 a check failed, attempts left",
      findings: { failedChecks: [failedCheck] },
      decision: "retry",
      feedback: "fix these: `node --test` exits 0",
    },
    { row: "8 a check failed, none left", findings: { failedChecks: [failedCheck], attempt: 3 }, decision: "fail" },
    {
      row: "9 an unsupported claim, first time",
      findings: { claims: [unsupported], finalAnswer: answer },
      decision: "retry",
      feedback: CLAIMS_RETRY_FEEDBACK,
    },
    { row: "10 judge criteria without a judge", findings: { judgeMissing: true }, decision: "escalate" },
    { row: "11 the judge is unsure", findings: { judge: judge("unsure") }, decision: "escalate" },
    { row: "12 a flagged risk materialized", findings: { judge: judge("pass", ["a restart hides the cause"]) }, decision: "escalate" },
    { row: "13 the judge says fail, attempts left", findings: { judge: judge("fail") }, decision: "retry" },
    { row: "13 the judge says fail, none left", findings: { judge: judge("fail"), attempt: 3 }, decision: "fail" },
    { row: "4 a delegated child did not complete", findings: { status: "failed", error: "model error", child: true }, decision: "fail" },
    {
      row: "9 a final answer with no claim",
      findings: { finalAnswer: { answer: "It was a cosmic ray.", claims: [], gaps: [] } },
      decision: "retry",
      feedback: CLAIMS_RETRY_FEEDBACK,
    },
    {
      row: "14 still no supported claim after the retry",
      findings: {
        finalAnswer: { answer: "It was a cosmic ray.", claims: [], gaps: [] },
        attempt: 2,
        previousFeedback: `${CLAIMS_RETRY_FEEDBACK} x`,
      },
      decision: "escalate",
    },
    {
      row: "15 the final answer, all backed",
      findings: { finalAnswer: answer, claims: [supported], judge: judge("pass") },
      decision: "done",
    },
    { row: "16 everything passed", findings: {}, decision: "continue" },
  ];
  for (const { row, findings, decision, feedback } of rows) {
    it(`row ${row} → ${decision}`, () => {
      const outcome = decideVerdict({ ...base, ...findings });
      expect(outcome.decision).toBe(decision);
      if (feedback) expect(outcome.feedback).toContain(feedback);
      expect(outcome.reasons.length).toBeGreaterThan(0);
    });
  }
});

describe("decideVerdict: claims and refusals are never dropped silently", () => {
  it("after the one claims retry, delivers the answer with the unbacked claim moved to gaps", () => {
    const outcome = decideVerdict({
      ...base,
      attempt: 2,
      previousFeedback: `${CLAIMS_RETRY_FEEDBACK} "a cosmic ray"`,
      claims: [supported, unsupported],
      finalAnswer: answer,
    });
    expect(outcome.decision).toBe("done");
    expect(outcome.answer?.claims.map((claim) => claim.text)).toEqual(["pool at 50/50"]);
    expect(outcome.answer?.gaps).toEqual(["not established (no observation of this run backs it): a cosmic ray"]);
    expect(outcome.reasons.join(" ")).toContain("delivered as a gap: a cosmic ray");
  });

  it("with no attempts left for a claims retry, delivers with gaps at once", () => {
    const outcome = decideVerdict({
      ...base,
      attempt: 3,
      claims: [supported, { ...unsupported, status: "contradicted" }],
      finalAnswer: answer,
    });
    expect(outcome.decision).toBe("done");
    expect(outcome.answer?.gaps[0]).toMatch(/^not established \(its evidence shows a failed call\)/);
  });

  it("records an action a person denied in the answer's gaps", () => {
    const denied = ["restart_service was not executed: cli:ops denied it: not during peak (approval apr_1)."];
    const outcome = decideVerdict({
      ...base,
      denied,
      claims: [supported],
      finalAnswer: { ...answer, claims: [answer.claims[0] as (typeof answer.claims)[number]] },
    });
    expect(outcome.decision).toBe("done");
    expect(outcome.answer?.gaps).toEqual([`not done: ${denied[0]}`]);
  });

  it("leaves a fully backed answer unamended", () => {
    expect(
      decideVerdict({
        ...base,
        claims: [supported],
        finalAnswer: { ...answer, claims: [answer.claims[0] as (typeof answer.claims)[number]] },
      }).answer,
    ).toBeUndefined();
  });

  it("does not accept an answer with no claims as done: retry once, then escalate", () => {
    const cosmic = { answer: "It was a cosmic ray.", claims: [], gaps: [] };
    const first = decideVerdict({ ...base, finalAnswer: cosmic });
    expect(first.decision).toBe("retry");
    expect(first.feedback).toContain(CLAIMS_RETRY_FEEDBACK);
    const second = decideVerdict({ ...base, attempt: 2, previousFeedback: first.feedback, finalAnswer: cosmic });
    expect(second.decision).toBe("escalate");
  });

  it("does not end done when every claim was moved to gaps", () => {
    const outcome = decideVerdict({
      ...base,
      attempt: 2,
      previousFeedback: `${CLAIMS_RETRY_FEEDBACK} x`,
      claims: [unsupported],
      finalAnswer: { ...answer, claims: [answer.claims[1] as (typeof answer.claims)[number]] },
    });
    expect(outcome.decision).toBe("escalate");
  });
});
