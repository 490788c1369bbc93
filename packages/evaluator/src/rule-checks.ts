import { readFile } from "node:fs/promises";
import type { AcceptanceCriterion, CheckResult, StepResult, Workspace } from "@rein/core";
import { runCheckCommand } from "./command-check.ts";

export interface RuleCheckContext {
  workspace: Workspace;
  allowedCommands: readonly string[];
  knownEvidenceIds: ReadonlySet<string>;
}

export type ClaimStatus = "supported" | "unsupported" | "contradicted";

/** Acceptance criteria that code can decide; `judge` criteria are left to the judge. */
export async function checkCriterion(criterion: AcceptanceCriterion, result: StepResult, context: RuleCheckContext): Promise<CheckResult | undefined> {
  switch (criterion.kind) {
    case "command": {
      const outcome = await runCheckCommand(criterion.argv, context.workspace.root, context.allowedCommands);
      const passed = outcome.exitCode === criterion.expectExitCode;
      return {
        check: criterion.description,
        passed,
        detail: `${criterion.argv.join(" ")} exited ${outcome.exitCode} (expected ${criterion.expectExitCode})${passed ? "" : `: ${outcome.output.trim().split("\n").slice(-8).join("\n")}`}`,
      };
    }
    case "file_contains": {
      try {
        const text = await readFile(await context.workspace.resolve(criterion.path), "utf8");
        const passed = text.includes(criterion.text);
        return { check: criterion.description, passed, detail: `${criterion.path} ${passed ? "contains" : "does not contain"} ${JSON.stringify(criterion.text)}` };
      } catch (error) {
        return { check: criterion.description, passed: false, detail: `cannot read ${criterion.path}: ${(error as Error).message}` };
      }
    }
    case "output_matches": {
      const text = typeof result.output === "string" ? result.output : JSON.stringify(result.output ?? "");
      const passed = new RegExp(criterion.pattern).test(text);
      return { check: criterion.description, passed, detail: `output ${passed ? "matches" : "does not match"} /${criterion.pattern}/` };
    }
    case "judge":
      return undefined;
  }
}

/** Checks that hold for every step, whatever its criteria. */
export function checkStepHygiene(result: StepResult): CheckResult[] {
  const checks: CheckResult[] = [];
  const unaddressed = result.toolCalls.filter((call) => call.status !== "ok" && !call.addressed);
  if (unaddressed.length > 0 && result.status === "completed") {
    checks.push({
      check: "no failed tool call left unaddressed",
      passed: false,
      detail: `failed calls never followed up: ${unaddressed.map((call) => `${call.name} (${call.status})`).join(", ")}`,
    });
  }
  const emptyObservations = result.observations.filter((observation) => observation.empty);
  if (emptyObservations.length > 0 && result.status === "completed" && emptyObservations.length === result.observations.length && result.summary.trim() === "") {
    checks.push({ check: "an empty result is explained", passed: false, detail: "every tool result was empty and the step's output does not say why" });
  }
  return checks;
}

/** Each claim must cite at least one observation of this run, and none that failed. */
export function checkClaims(result: StepResult, knownEvidenceIds: ReadonlySet<string>): { text: string; status: ClaimStatus }[] {
  const own = new Map(result.observations.map((observation) => [observation.id, observation]));
  return result.claims.map((claim) => {
    const cited = claim.evidence.filter((id) => own.has(id) || knownEvidenceIds.has(id));
    if (cited.length === 0 || cited.length < claim.evidence.length) return { text: claim.text, status: "unsupported" as const };
    const failed = cited.some((id) => {
      const observation = own.get(id);
      return observation !== undefined && observation.status !== "ok";
    });
    return { text: claim.text, status: failed ? ("contradicted" as const) : ("supported" as const) };
  });
}
