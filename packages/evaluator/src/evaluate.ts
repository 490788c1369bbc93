import { FinalAnswer, type GoalKind, type Usage, zeroUsage } from "@rein/contracts";
import type { CheckResult, ClaimCheck, Verdict } from "@rein/contracts/run";
import type { EvaluateJob, FinalAnswerEvaluateJob, StepEvaluateJob } from "@rein/contracts/messages";
import type { ToolCallStatus } from "@rein/contracts/calls";
import type { Redactor } from "@rein/guard";
import type { ModelProvider, ModelStreamEvent } from "@rein/models";
import type { UnknownOutcomePolicy } from "@rein/runtime";
import type { Workspace } from "@rein/tools";
import type { TraceEventBody, TraceWriter } from "@rein/trace";
import type { CommandCheckRunner } from "./command-check.ts";
import { runFingerprint, stepFingerprint } from "./fingerprints.ts";
import { judge, type JudgeScore } from "./judge.ts";
import { resolvedStepLesson } from "./lesson-draft.ts";
import { detectLoop, loopedByFingerprints, type LoopFinding } from "./loop-detector.ts";
import {
  checkClaims,
  checkClaimsAgainst,
  checkCriterion,
  checkStepHygiene,
  deniedActions,
  type EvidenceIndex,
  unknownOutcomes,
} from "./rule-checks.ts";
import { decideVerdict, type Findings, type PolicyOutcome } from "./verdict-policy.ts";

export interface EvaluatorDeps {
  /** The job's trace writer (a TraceHold in the evaluate consumer); command checks write through it too. */
  trace: TraceWriter;
  workspace: Workspace;
  /** Runs acceptance `command` checks through the executor and sandbox (`commandCheckRunner`). */
  checks: CommandCheckRunner;
  /** The judge role's provider; without one, judge criteria escalate and flagged risks go unjudged. */
  judge?: ModelProvider;
  /** Bytes of each observation's data the judge sees (config `observations.judgeMaxBytes`). */
  judgeObservationBytes?: number;
  /** Removes secrets from what the judge is shown. */
  redactor?: Redactor;
  /** The judge's output as it streams, for the run's live channel. */
  onJudgeEvent?: (event: ModelStreamEvent) => void;
  /** Attempts of one step before repeated failure escalates. @defaultValue 3 */
  maxAttempts?: number;
  /** What a step with a side effect of unknown outcome gets (config `evaluator.unknownOutcome`). @defaultValue "escalate" */
  unknownOutcome?: UnknownOutcomePolicy;
  now?: () => Date;
}

/** A verdict and what producing it spent (the judge's tokens; zero when only rules ran). */
export interface Evaluation {
  verdict: Verdict;
  usage: Usage;
}

/**
 * Rules first, judge second, then the verdict policy (see `decideVerdict`
 * for the table). The judge is asked only when the rules passed and there is
 * something only it can score: `judge` criteria, or risks the planner flagged.
 */
export async function evaluate(job: EvaluateJob, deps: EvaluatorDeps, signal?: AbortSignal): Promise<Evaluation> {
  // A proposed final answer is checked by rules alone: nothing is spent on it.
  return job.kind === "final" ? { verdict: await evaluateProposal(job, deps), usage: zeroUsage() } : evaluateStep(job, deps, signal);
}

/**
 * The planner proposed that the goal is met. Its answer gets the same final
 * checks as a worker's answer step: every claim against all of the run's
 * evidence, at least one supported claim (or an explicit gap for a goal that
 * asks a question), one retry with feedback, then unbacked claims moved to gaps.
 */
async function evaluateProposal(job: FinalAnswerEvaluateJob, deps: EvaluatorDeps): Promise<Verdict> {
  const claims = checkClaimsAgainst(job.answer.claims, evidenceIndexOf(job));
  await trace(deps, job, { kind: "claims.checked", payload: { claims, proposedBy: "planner" } });
  const outcome = decideVerdict({
    attempt: job.attempt,
    maxAttempts: deps.maxAttempts ?? 3,
    status: "completed",
    loopedBefore: false,
    failedChecks: [],
    unrunnableChecks: [],
    wrongSurface: false,
    claims,
    previousFeedback: job.feedback,
    judgeMissing: false,
    finalAnswer: job.answer,
    goalKind: goalKindOf(job),
    denied: [],
    unknownOutcomes: [],
  });
  return verdictOf(job, outcome, [], claims);
}

async function evaluateStep(job: StepEvaluateJob, deps: EvaluatorDeps, signal?: AbortSignal): Promise<Evaluation> {
  const { result, spec } = job;
  const maxAttempts = deps.maxAttempts ?? 3;
  const calls = result.toolCalls;
  await trace(deps, job, {
    kind: "fingerprints.recorded",
    payload: {
      attempt: job.attempt,
      calls: calls.map((call) => call.fingerprint),
      step: stepFingerprint(calls),
      attempts: runFingerprint([...job.priorFingerprints, calls.map((call) => call.fingerprint)]),
    },
  });

  const loopFinding = detectLoop(calls, new Set(job.priorFailedFingerprints));
  const loop = loopFinding ? { finding: loopFinding, description: describeLoop(loopFinding, calls) } : undefined;
  const loopedBefore = job.priorFingerprints.some((fingerprints) => loopedByFingerprints(fingerprints));

  const checks: CheckResult[] = [];
  const unrunnable: CheckResult[] = [];
  if (result.status === "completed") {
    const knownEvidence = new Set(job.knownEvidenceIds);
    const checkContext = {
      runId: job.runId,
      stepId: job.stepId,
      attempt: job.attempt,
      grant: job.checkGrant,
      policy: job.policy,
      workspace: deps.workspace,
      signal,
      trace: deps.trace,
    };
    for (const [index, criterion] of spec.acceptance_criteria.entries()) {
      const outcome = await checkCriterion(criterion, result, {
        workspace: deps.workspace,
        checks: deps.checks,
        checkContext,
        index,
        knownEvidenceIds: knownEvidence,
        redactor: deps.redactor,
      });
      if (!outcome) continue;
      const { unrunnable: cannotRun, ...check } = outcome;
      (cannotRun ? unrunnable : checks).push(check);
    }
    checks.push(...checkStepHygiene(result));
  }
  const claims = result.status === "completed" ? checkClaims(result, evidenceIndexOf(job)) : [];
  if (claims.length > 0) await trace(deps, job, { kind: "claims.checked", payload: { claims } });
  const failedChecks = checks.filter((check) => !check.passed);
  const failing = calls.filter((call) => call.status !== "ok");
  const wrongSurface = failing.length > 0 && failing.every((call) => call.status === "refused");
  const answer = spec.output_contract.format === "answer" ? FinalAnswer.safeParse(result.output) : undefined;

  const findings: Findings = {
    attempt: job.attempt,
    maxAttempts,
    status: result.status,
    error: result.error ?? result.summary,
    loop,
    loopedBefore,
    failedChecks,
    unrunnableChecks: unrunnable,
    wrongSurface,
    claims,
    previousFeedback: job.feedback,
    judgeMissing: false,
    finalAnswer: answer?.success ? answer.data : undefined,
    goalKind: goalKindOf(job),
    child: job.kind === "child",
    denied: deniedActions(result),
    unknownOutcomes: unknownOutcomes(result),
    unknownOutcome: deps.unknownOutcome,
  };
  if (loop)
    await trace(deps, job, {
      kind: "loop.detected",
      payload: {
        ...loop.finding,
        description: loop.description,
        loopedBefore,
        blocking: result.status !== "completed" || failedChecks.length > 0,
      },
    });

  // The judge only scores what is left once the rules would let the step through.
  let outcome = decideVerdict(findings);
  let usage = zeroUsage();
  const judged = spec.acceptance_criteria.filter((criterion) => criterion.kind === "judge").map((criterion) => criterion.description);
  const passing = outcome.decision === "continue" || outcome.decision === "done";
  if (passing && (judged.length > 0 || job.risks.length > 0)) {
    if (deps.judge) {
      const judgement = await judge(
        deps.judge,
        { criteria: judged, risks: job.risks, observationBytes: deps.judgeObservationBytes, redactor: deps.redactor },
        job.result,
        deps.trace,
        signal,
        deps.onJudgeEvent,
      );
      usage = judgement.usage;
      const score = onlyGivenRisks(judgement.score, job.risks);
      findings.judge = score;
      checks.push(
        ...judged.map((criterion) => ({ check: criterion, passed: score.verdict === "pass", detail: `judge: ${score.verdict}` })),
      );
    } else if (judged.length > 0) {
      findings.judgeMissing = true;
    }
    outcome = decideVerdict(findings);
  }

  const lesson = resolvedStepLesson(job, outcome.decision, deps.now?.() ?? new Date());
  const verdict: Verdict = {
    ...verdictOf(job, outcome, [...checks, ...unrunnable], claims),
    ...(loop ? { loop: loop.finding } : {}),
    ...(lesson ? { lesson } : {}),
  };
  return { verdict, usage };
}

/** The policy's decision on the job's attempt, with every check behind it: the rules' and the judge's, then one per claim. */
function verdictOf(job: EvaluateJob, outcome: PolicyOutcome, checks: readonly CheckResult[], claims: ClaimCheck[]): Verdict {
  return {
    schemaVersion: 1,
    runId: job.runId,
    stepId: job.stepId,
    attempt: job.attempt,
    decision: outcome.decision,
    reasons: outcome.reasons,
    feedback: outcome.feedback,
    checks: [...checks, ...claimChecks(claims)],
    claims,
    ...(outcome.answer ? { answer: outcome.answer } : {}),
  };
}

const claimChecks = (claims: readonly ClaimCheck[]): CheckResult[] =>
  claims.map((claim) => ({
    check: `claim is backed by evidence: ${claim.text}`,
    passed: claim.status === "supported",
    detail: claim.status,
  }));

/** A goal whose kind was never said is held to the strictest reading. */
const goalKindOf = (job: EvaluateJob): GoalKind => job.goalKind ?? "change";

/**
 * Every observation of the run with the status of its call. Ids the job
 * lists only as known (a job queued before statuses were sent) count as ok.
 * A step's output backs a claim only for a goal that asks for text: it is
 * evidence of what the step wrote, never of the world, so for any other
 * goal a claim citing it is unsupported.
 */
function evidenceIndexOf(job: EvaluateJob): EvidenceIndex {
  const index = new Map<string, ToolCallStatus>();
  const outputsCount = goalKindOf(job) === "text";
  if (job.kind !== "final") for (const id of job.knownEvidenceIds) index.set(id, "ok");
  for (const fact of job.evidence) {
    if (fact.source === "output" && !outputsCount) index.delete(fact.id);
    else index.set(fact.id, fact.status);
  }
  return index;
}

/** The judge may only name risks it was given; anything else it lists is dropped. */
function onlyGivenRisks(score: JudgeScore, risks: readonly string[]): JudgeScore {
  const given = new Set(risks);
  return { ...score, risks_hit: score.risks_hit.filter((risk) => given.has(risk)) };
}

function describeLoop(loop: LoopFinding, calls: StepEvaluateJob["result"]["toolCalls"]): string {
  const name = calls.find((call) => call.fingerprint === loop.fingerprint)?.name ?? "a tool";
  switch (loop.kind) {
    case "no_progress":
      return `${name} was called with the same arguments 3 times and returned the same result each time`;
    case "repeat":
      return `${name} was called with the same arguments 3 times without new results`;
    case "cycle":
      return `${name} and another call alternated (A-B-A-B) with the same results`;
    case "repeat_after_retry":
      return `${name} failed before the retry and was called again with the same arguments, and failed again`;
  }
}

async function trace(deps: EvaluatorDeps, job: EvaluateJob, body: TraceEventBody): Promise<void> {
  // The planner's proposed answer belongs to no step, as its verdict does in the controller's trace.
  await deps.trace.append({ runId: job.runId, stepId: job.kind === "final" ? null : job.stepId, ...body });
}
