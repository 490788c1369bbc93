import type { AcceptanceCriterion, Claim, StepResult } from "@rein/contracts";
import type { CheckResult, ClaimCheck } from "@rein/contracts/run";
import type { ToolCallStatus } from "@rein/contracts/calls";
import type { Redactor } from "@rein/guard";
import { isFailureAddressed, type Workspace } from "@rein/tools";
import { compileCheckPattern } from "./check-pattern.ts";
import type { CheckContext, CommandCheckRunner } from "./command-check.ts";
import { readCheckedFile } from "./file-check.ts";

export interface RuleCheckContext {
  workspace: Workspace;
  checks: CommandCheckRunner;
  /** The run's grant and policy the command checks run under. */
  checkContext: CheckContext;
  /** The criterion's position, so each check's calls have their own ids in the trace. */
  index: number;
  knownEvidenceIds: ReadonlySet<string>;
  /** Removes secrets from a failing check's output before it becomes feedback. */
  redactor?: Redactor;
}

// A failing check's output rides in the verdict's reasons and feedback into the planner's and the next worker's prompts.
const CHECK_OUTPUT_LINES = 8;

/** A check's result; `unrunnable` when the check cannot be run as written (outside the run's grant or policy, or needing approval). */
export type CriterionOutcome = CheckResult & { unrunnable?: boolean };

/** Acceptance criteria that code can decide; `judge` criteria are left to the judge. */
export async function checkCriterion(
  criterion: AcceptanceCriterion,
  result: StepResult,
  context: RuleCheckContext,
): Promise<CriterionOutcome | undefined> {
  switch (criterion.kind) {
    case "command": {
      const outcome = await context.checks.run(criterion.argv, context.index, context.checkContext);
      const passed = outcome.exitCode === criterion.expectExitCode;
      return {
        check: criterion.description,
        passed,
        unrunnable: outcome.refused,
        detail: `${criterion.argv.join(" ")} exited ${outcome.exitCode} (expected ${criterion.expectExitCode})${passed ? "" : `: ${checkOutput(outcome.output, context.redactor)}`}`,
      };
    }
    case "file_contains": {
      const file = await readCheckedFile(context.workspace, criterion.path);
      if (!file.ok) return { check: criterion.description, passed: false, detail: `cannot read ${criterion.path}: ${file.problem}` };
      const passed = file.text.includes(criterion.text);
      return {
        check: criterion.description,
        passed,
        detail: `${criterion.path} ${passed ? "contains" : "does not contain"} ${JSON.stringify(criterion.text)}`,
      };
    }
    case "output_matches": {
      const text = typeof result.output === "string" ? result.output : JSON.stringify(result.output ?? "");
      const pattern = compileCheckPattern(criterion.pattern);
      if (!pattern.ok)
        return {
          check: criterion.description,
          passed: false,
          unrunnable: true,
          detail: `/${criterion.pattern}/ cannot be matched safely: ${pattern.problem}`,
        };
      const passed = pattern.test(text);
      return { check: criterion.description, passed, detail: `output ${passed ? "matches" : "does not match"} /${criterion.pattern}/` };
    }
    case "judge":
      return undefined;
  }
}

/**
 * Checks that hold for every step, whatever its criteria. A `denied` call is
 * not the worker's to fix (a person or the policy refused it); the evaluator
 * reports it instead (see `deniedActions`).
 */
export function checkStepHygiene(result: StepResult): CheckResult[] {
  const checks: CheckResult[] = [];
  // Derived here from the calls and the final text, not taken from the worker's own `addressed` flags.
  const finalText = [result.summary, typeof result.output === "string" ? result.output : JSON.stringify(result.output ?? "")].join("\n");
  const unaddressed = result.toolCalls.filter(
    (call, index) => call.status !== "ok" && call.status !== "denied" && !isFailureAddressed(result.toolCalls, index, finalText),
  );
  if (unaddressed.length > 0 && result.status === "completed") {
    checks.push({
      check: "no failed tool call left unaddressed",
      passed: false,
      detail: `failed calls never followed up (call the same tool again with changed arguments until it succeeds, or say in the final text why the failure does not matter): ${unaddressed.map((call) => `${call.name} (${call.status}, ${call.observationId})`).join(", ")}`,
    });
  }
  const emptyObservations = result.observations.filter((observation) => observation.empty);
  if (
    emptyObservations.length > 0 &&
    result.status === "completed" &&
    emptyObservations.length === result.observations.length &&
    result.summary.trim() === ""
  ) {
    checks.push({
      check: "an empty result is explained",
      passed: false,
      detail: "every tool result was empty and the step's output does not say why",
    });
  }
  return checks;
}

/** The run's observations by id, with the status of the call behind each. */
export type EvidenceIndex = ReadonlyMap<string, ToolCallStatus>;

/**
 * Each claim must cite at least one observation id, and every id it cites
 * must be an observation of this run; otherwise it is `unsupported`. A
 * claim that cites an observation of a call that did not succeed is
 * `contradicted`: the evidence it names says the thing it rests on did not
 * happen.
 */
export function checkClaimsAgainst(claims: readonly Claim[], evidence: EvidenceIndex): ClaimCheck[] {
  return claims.map((claim) => {
    const base = { text: claim.text, evidence: claim.evidence };
    const statuses = claim.evidence.map((id) => evidence.get(id));
    if (statuses.length === 0 || statuses.includes(undefined)) return { ...base, status: "unsupported" as const };
    return { ...base, status: statuses.every((status) => status === "ok") ? ("supported" as const) : ("contradicted" as const) };
  });
}

/** A step's claims against the run's evidence and the step's own observations. */
export function checkClaims(result: StepResult, evidence: EvidenceIndex): ClaimCheck[] {
  const index = new Map(evidence);
  for (const observation of result.observations) index.set(observation.id, observation.status);
  return checkClaimsAgainst(result.claims, index);
}

/** One line per call the runtime refused (policy or a person), as it was told to the model. */
export function deniedActions(result: StepResult): string[] {
  return result.observations
    .filter((observation) => observation.status === "denied")
    .map((observation) => (observation.content.split("\n")[0] ?? "").replace(/\s*(Do not retry|Choose a different).*$/, "").trim());
}

/** One line per side-effecting call whose outcome a crash left unknown: the observation's first line, which names the action. */
export function unknownOutcomes(result: StepResult): string[] {
  return result.observations
    .filter((observation) => observation.status === "outcome_unknown")
    .map((observation) => observation.content.split("\n")[0] ?? "");
}

/**
 * The end of what a failing check printed, redacted before the cut so the
 * verdict never stores a secret. It is still outside text: the planner's and
 * the worker's prompts present the verdict's reasons and feedback fenced.
 */
function checkOutput(output: string, redactor: Redactor | undefined): string {
  const redacted = redactor ? redactor.redact(output).text : output;
  return redacted.trim().split("\n").slice(-CHECK_OUTPUT_LINES).join("\n");
}
