import type { FinalAnswer, GoalKind, StepStatus } from "@rein/contracts";
import type { CheckResult, ClaimCheck, VerdictDecision } from "@rein/contracts/run";
import type { UnknownOutcomePolicy } from "@rein/runtime";
import type { JudgeScore } from "./judge.ts";
import type { LoopFinding } from "./loop-detector.ts";

/** Feedback that starts a claims retry; seeing it again means the one claims retry was spent. */
export const CLAIMS_RETRY_FEEDBACK = "unsupported claims:";
export const CHANGE_STRATEGY_FEEDBACK = "change strategy:";

/** Everything the rules and the judge found about one attempt of a step. */
export interface Findings {
  attempt: number;
  maxAttempts: number;
  status: StepStatus;
  /** The step's error or summary, when it did not complete. */
  error?: string;
  loop?: { finding: LoopFinding; description: string };
  /** An earlier attempt of this step looped too. */
  loopedBefore: boolean;
  /** Code checks (acceptance criteria and step hygiene) that failed. */
  failedChecks: readonly CheckResult[];
  /** Checks that could not run as written (e.g. a command that is not allowlisted). */
  unrunnableChecks: readonly CheckResult[];
  /** The step failed and every failing call was refused for being outside its tools or scope. */
  wrongSurface: boolean;
  claims: readonly ClaimCheck[];
  /** The feedback this attempt was dispatched with. */
  previousFeedback?: string;
  /** What the judge said, when it was asked. */
  judge?: JudgeScore;
  /** Judge criteria exist but no judge is configured. */
  judgeMissing: boolean;
  /** The step's output (or the planner's proposal) is the run's final answer. */
  finalAnswer?: FinalAnswer;
  /**
   * What the goal asks for (said at submit or by the plan that started the
   * work, never guessed from its text): only a `question` may be answered
   * by an explicit gap ("could not establish …") instead of a supported claim.
   * @defaultValue "change"
   */
  goalKind?: GoalKind;
  /** The step is a delegated child: what it could not do goes back to its parent rather than being retried. */
  child?: boolean;
  /** Calls the policy or a person refused, one line each. */
  denied: readonly string[];
  /** Side-effecting calls a crash cut off before they recorded how they ended, one line each with the action. */
  unknownOutcomes: readonly string[];
  /** What row 0 decides (config `evaluator.unknownOutcome`). @defaultValue "escalate" */
  unknownOutcome?: UnknownOutcomePolicy;
}

export interface PolicyOutcome {
  decision: VerdictDecision;
  reasons: string[];
  feedback?: string;
  /** The answer to deliver, when it differs from what the worker returned. */
  answer?: FinalAnswer;
}

/**
 * The verdict policy. Rows are tried top to bottom; the first that matches decides.
 *
 * | #  | situation                                                         | decision |
 * | -- | ----------------------------------------------------------------- | -------- |
 * | 0  | a side effect's outcome is unknown after a crash                  | escalate, naming the action (or as |
 * |    |                                                                   | `evaluator.unknownOutcome` says: replan, fail; a child: fail) |
 * | 1  | the attempt did not pass (not completed, or a code check failed)  |          |
 * |    | and it looped, and an earlier attempt looped too or none are left | escalate (repeated loop) |
 * | 2  | as 1, first loop of this step                                     | retry, "change strategy: …" |
 * | 3  | a check cannot run as written, or the step failed only on calls   |          |
 * |    | outside its tools/scope                                           | replan (the step itself is wrong) |
 * | 4  | a delegated child did not complete                                | fail (back to its parent as a failed delegation) |
 * | 5  | the step did not complete (failed, budget exhausted), attempts left | retry, naming the error |
 * | 6  | the step did not complete, no attempts left                        | escalate (repeated failure) |
 * | 7  | a code check failed, attempts left                                | retry, naming the failed checks |
 * | 8  | a code check failed, no attempts left                             | fail (the work is measurably wrong) |
 * | 9  | a claim is unsupported or contradicted, or a final answer has no  |          |
 * |    | supported claim, no claims retry yet, attempts left               | retry, naming the claims |
 * | 10 | judge criteria and no judge configured                            | escalate |
 * | 11 | the judge is unsure                                               | escalate |
 * | 12 | the judge says a risk the planner flagged materialized            | escalate |
 * | 13 | the judge says fail, attempts left / none left                    | retry / fail |
 * | 14 | a final answer still has no supported claim (and, for a goal that |          |
 * |    | asks a question, no explicit gap)                                 | escalate (nothing verified) |
 * | 15 | everything passed, the final answer                               | done; claims still unbacked after row 9 are moved to `gaps`, refused actions are added to `gaps` |
 * | 16 | everything passed                                                 | continue (unbacked claims and refused actions named in the reasons) |
 *
 * A loop in an attempt that otherwise passed is traced but does not block it.
 */
export function decideVerdict(findings: Findings): PolicyOutcome {
  const attemptsLeft = findings.attempt < findings.maxAttempts;
  const passed = findings.status === "completed" && findings.failedChecks.length === 0;
  const failedReasons = findings.failedChecks.map((check) => `${check.check}: ${check.detail}`);

  // Whether it happened is a fact about the world: by default a person checks it. Never a retry, which could do it twice.
  if (findings.unknownOutcomes.length > 0) return unknownOutcomeVerdict(findings);

  if (findings.loop && !passed) {
    const { description, finding } = findings.loop;
    if (findings.loopedBefore || !attemptsLeft)
      return { decision: "escalate", reasons: [`repeated loop (${finding.kind}) after a retry: ${description}`] };
    return {
      decision: "retry",
      reasons: [`loop detected (${finding.kind}): ${description}`],
      feedback: `${CHANGE_STRATEGY_FEEDBACK} ${description}; do not make that call again with the same arguments, take a different action`,
    };
  }
  if (findings.unrunnableChecks.length > 0) {
    return {
      decision: "replan",
      reasons: findings.unrunnableChecks.map((check) => `check cannot run as written: ${check.check}: ${check.detail}`),
    };
  }
  if (findings.status !== "completed") {
    const reason = `step ${findings.status}: ${findings.error ?? "no detail"}`;
    if (findings.child) return { decision: "fail", reasons: [`the delegated step did not complete: ${findings.error ?? findings.status}`] };
    if (findings.wrongSurface) return { decision: "replan", reasons: [reason, "every failing call was outside the step's tools or scope"] };
    if (attemptsLeft)
      return {
        decision: "retry",
        reasons: [reason],
        feedback: `the previous attempt ended ${findings.status}: ${findings.error ?? "no detail"}; change what caused it`,
      };
    return { decision: "escalate", reasons: [`repeated failure: the step did not complete in ${findings.attempt} attempts`, reason] };
  }
  if (findings.failedChecks.length > 0) {
    if (attemptsLeft) return { decision: "retry", reasons: failedReasons, feedback: `fix these: ${failedReasons.join("; ")}` };
    return { decision: "fail", reasons: [`checks still failing after ${findings.attempt} attempts`, ...failedReasons] };
  }

  const unbacked = findings.claims.filter((claim) => claim.status !== "supported");
  const goalKind = findings.goalKind ?? "change";
  const unverified = findings.finalAnswer !== undefined && !verifiesSomething(findings.finalAnswer, findings.claims, goalKind);
  const noBackedClaim = `${NO_BACKED_CLAIM} ${NOT_VERIFIED_BECAUSE[goalKind]}`;
  const claimsRetried = findings.previousFeedback?.startsWith(CLAIMS_RETRY_FEEDBACK) ?? false;
  if ((unbacked.length > 0 || unverified) && !claimsRetried && attemptsLeft) {
    const listing = unbacked.map((claim) => `"${claim.text}" (${claim.status})`).join("; ");
    return {
      decision: "retry",
      reasons: [...unbacked.map((claim) => `claim ${claim.status}: ${claim.text}`), ...(unverified ? [noBackedClaim] : [])],
      feedback: `${CLAIMS_RETRY_FEEDBACK} ${[listing, unverified ? noBackedClaim : ""].filter(Boolean).join("; ")}. Cite, for each claim, the ids of observations of this run that back it (a claim citing a failed call is contradicted), or move the claim to gaps`,
    };
  }

  if (findings.judgeMissing) return { decision: "escalate", reasons: ["criteria need the judge, and no judge model is configured"] };
  if (findings.judge) {
    const { verdict, reasons, risks_hit: risksHit } = findings.judge;
    if (verdict === "unsure") return { decision: "escalate", reasons: ["the judge is unsure", ...reasons] };
    if (risksHit.length > 0)
      return { decision: "escalate", reasons: risksHit.map((risk) => `a risk the planner flagged materialized: ${risk}`) };
    if (verdict === "fail") {
      if (attemptsLeft) return { decision: "retry", reasons, feedback: reasons.join("; ") };
      return { decision: "fail", reasons };
    }
  }

  if (unverified)
    return {
      decision: "escalate",
      reasons: [`${noBackedClaim}, after one retry with feedback`, ...unbacked.map((claim) => `claim ${claim.status}: ${claim.text}`)],
    };

  const notes = [
    ...unbacked.map((claim) => `claim ${claim.status}, delivered as a gap: ${claim.text}`),
    ...findings.denied.map((line) => `refused: ${line}`),
  ];
  if (findings.finalAnswer) {
    const answer = amendAnswer(findings.finalAnswer, unbacked, findings.denied);
    return {
      decision: "done",
      reasons: ["the evaluator verified the final answer: each remaining claim cites observations of this run that succeeded", ...notes],
      ...(answer === findings.finalAnswer ? {} : { answer }),
    };
  }
  return { decision: "continue", reasons: ["the step completed and its checks passed", ...notes] };
}

const NO_BACKED_CLAIM = "the final answer has no claim backed by an observation of this run";

/** Why, for each kind of goal, an answer with no supported claim verifies nothing. */
const NOT_VERIFIED_BECAUSE: Record<GoalKind, string> = {
  change: "(the goal asks for a change: a claim must cite an observation showing it was made; a step's output is not one)",
  question: "(the goal asks a question: a claim must cite an observation, or the answer must say in gaps what could not be established)",
  text: "(the goal asks for a piece of text: a claim must cite the output of the step that wrote it)",
};

/**
 * A final answer verifies something when at least one claim is supported
 * (for a `text` goal a step's output counts, see `evidenceIndexOf`), or, for
 * a goal that asks a question, when it says explicitly what it could not
 * establish (a gap of its own, not one the evaluator moved there). A gap
 * never stands in for a change or a text.
 */
function verifiesSomething(answer: FinalAnswer, claims: readonly ClaimCheck[], goalKind: GoalKind): boolean {
  return claims.some((claim) => claim.status === "supported") || (goalKind === "question" && answer.gaps.length > 0);
}

/** Moves unbacked claims to `gaps`, saying why, and records refused actions there too. */
function amendAnswer(answer: FinalAnswer, unbacked: readonly ClaimCheck[], denied: readonly string[]): FinalAnswer {
  if (unbacked.length === 0 && denied.length === 0) return answer;
  const moved = new Set(unbacked.map((claim) => claim.text));
  return {
    answer: answer.answer,
    claims: answer.claims.filter((claim) => !moved.has(claim.text)),
    gaps: [
      ...answer.gaps,
      ...unbacked.map((claim) =>
        claim.status === "contradicted"
          ? `not established (its evidence shows a failed call): ${claim.text}`
          : `not established (no observation of this run backs it): ${claim.text}`,
      ),
      ...denied.map((line) => `not done: ${line}`),
    ],
  };
}

/** Row 0, as the deployment chose; a child's goes back to its parent, whose worker decides. */
function unknownOutcomeVerdict(findings: Findings): PolicyOutcome {
  const policy = findings.unknownOutcome ?? "escalate";
  const lines = findings.unknownOutcomes;
  if (policy === "escalate") return { decision: "escalate", reasons: lines.map((line) => `a person must check: ${line}`) };
  if (policy === "fail" || findings.child)
    return { decision: "fail", reasons: lines.map((line) => `the run does not go on past an unknown outcome: ${line}`) };
  return {
    decision: "replan",
    reasons: lines.map((line) => `the planner must check it before anything builds on it: ${line}`),
    feedback: `check whether it happened before doing anything that depends on it, and never perform it again unchecked: ${lines.join("; ")}`,
  };
}
