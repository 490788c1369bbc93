import {
  type CheckResult,
  type EvaluateJob,
  type ModelProvider,
  type TraceLog,
  type Verdict,
  type VerdictDecision,
  type Workspace,
} from "@rein/core";
import { judge } from "./judge.ts";
import { detectLoop, type LoopFinding } from "./loop-detector.ts";
import { checkClaims, checkCriterion, checkStepHygiene } from "./rule-checks.ts";

export interface EvaluatorDeps {
  trace: TraceLog;
  workspace: Workspace;
  allowedCommands: readonly string[];
  /** The judge role's provider; without one, judge criteria are "unsure". */
  judge?: ModelProvider;
  /** Attempts of one step before repeated failure escalates. @defaultValue 3 */
  maxAttempts?: number;
}

/**
 * Rules first, judge second, then the verdict policy:
 *
 * | situation                                              | decision  |
 * | ------------------------------------------------------ | --------- |
 * | a loop, first time for this step                       | retry ("change strategy") |
 * | a loop again after a retry                             | escalate  |
 * | step failed or ran out of budget, attempts left        | retry (with the error) |
 * | step failed, no attempts left                          | escalate  |
 * | a code check failed, attempts left                     | retry (naming the failed checks) |
 * | a code check failed, no attempts left                  | fail      |
 * | an unsupported claim, first attempt                    | retry (cite evidence) |
 * | the judge is unsure                                    | escalate  |
 * | the judge says fail                                    | retry / fail as for checks |
 * | everything passed, the step delivered the final answer | done      |
 * | everything passed                                      | continue  |
 */
export async function evaluate(job: EvaluateJob, deps: EvaluatorDeps, signal?: AbortSignal): Promise<Verdict> {
  const { result, spec } = job;
  const maxAttempts = deps.maxAttempts ?? 3;
  const attemptsLeft = job.attempt < maxAttempts;
  const verdict = (decision: VerdictDecision, reasons: string[], fields: Partial<Verdict> = {}): Verdict => ({
    schemaVersion: 1,
    runId: job.runId,
    stepId: job.stepId,
    attempt: job.attempt,
    decision,
    reasons,
    checks,
    ...fields,
  });
  const checks: CheckResult[] = [];

  const priorCalls = new Set(job.priorFingerprints.flat());
  const loop = detectLoop(result.toolCalls, job.attempt > 1 ? priorCalls : new Set());
  if (loop) {
    const loopedBefore = job.priorFingerprints.some((fingerprints) => hasRepeat(fingerprints));
    await trace(deps, job, "loop.detected", { ...loop, loopedBefore });
    if (loopedBefore || job.attempt >= maxAttempts) return verdict("escalate", [`repeated loop (${loop.kind}) after a retry`], { loop });
    return verdict("retry", [`loop detected: ${describeLoop(loop)}`], {
      loop,
      feedback: "change strategy: the same call kept returning the same result; try a different action or different arguments",
    });
  }

  if (result.status !== "completed") {
    const reason = `step ${result.status}: ${result.error ?? result.summary}`;
    if (attemptsLeft) return verdict("retry", [reason], { feedback: `the previous attempt ended ${result.status}: ${result.error ?? result.summary}` });
    return verdict("escalate", [`repeated failure after ${job.attempt} attempts`, reason]);
  }

  const knownEvidence = new Set(job.knownEvidenceIds);
  for (const criterion of spec.acceptance_criteria) {
    const check = await checkCriterion(criterion, result, { workspace: deps.workspace, allowedCommands: deps.allowedCommands, knownEvidenceIds: knownEvidence });
    if (check) checks.push(check);
  }
  checks.push(...checkStepHygiene(result));
  const claims = checkClaims(result, knownEvidence);
  for (const claim of claims) {
    checks.push({ check: `claim is backed by evidence: ${claim.text}`, passed: claim.status === "supported", detail: claim.status });
  }

  const failed = checks.filter((check) => !check.passed);
  const unsupportedOnly = failed.length > 0 && failed.every((check) => check.check.startsWith("claim is backed"));
  if (failed.length > 0) {
    const reasons = failed.map((check) => `${check.check}: ${check.detail}`);
    if (unsupportedOnly && job.attempt > 1) {
      return verdict("done", ["unsupported claims delivered as gaps after one retry", ...reasons]);
    }
    if (attemptsLeft) return verdict("retry", reasons, { feedback: `fix these: ${reasons.join("; ")}` });
    return verdict("fail", [`checks still failing after ${job.attempt} attempts`, ...reasons]);
  }

  const judged = spec.acceptance_criteria.filter((criterion) => criterion.kind === "judge").map((criterion) => criterion.description);
  if (judged.length > 0) {
    if (!deps.judge) return verdict("escalate", ["criteria need the judge, and no judge model is configured"]);
    const { score } = await judge(deps.judge, judged, result, deps.trace, signal);
    checks.push(...judged.map((criterion) => ({ check: criterion, passed: score.verdict === "pass", detail: `judge: ${score.verdict}` })));
    if (score.verdict === "unsure") return verdict("escalate", ["the judge is unsure", ...score.reasons]);
    if (score.verdict === "fail") {
      if (attemptsLeft) return verdict("retry", score.reasons, { feedback: score.reasons.join("; ") });
      return verdict("fail", score.reasons);
    }
  }

  if (spec.output_contract.format === "answer") return verdict("done", ["the final answer meets its contract with evidence"]);
  return verdict("continue", [checks.length > 0 ? `all ${checks.length} checks passed` : "step completed; no checks were specified"]);
}

function hasRepeat(fingerprints: readonly string[]): boolean {
  const counts = new Map<string, number>();
  for (const fingerprint of fingerprints) counts.set(fingerprint, (counts.get(fingerprint) ?? 0) + 1);
  return [...counts.values()].some((count) => count >= 3);
}

function describeLoop(loop: LoopFinding): string {
  switch (loop.kind) {
    case "repeat":
    case "no_progress":
      return "the same call was repeated without new results";
    case "cycle":
      return "two calls alternated (A-B-A-B) without progress";
    case "repeat_after_retry":
      return "a call that failed before the retry failed again";
  }
}

async function trace(deps: EvaluatorDeps, job: EvaluateJob, kind: string, payload: Record<string, unknown>): Promise<void> {
  await deps.trace.append({ runId: job.runId, stepId: job.stepId, kind, payload });
}
