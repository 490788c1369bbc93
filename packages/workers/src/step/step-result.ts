import { FinalAnswer, type StepResult, type Suspension, totalTokens } from "@rein/contracts";
import { type ModelResponse, parseJsonText, textOf } from "@rein/models";
import { withAddressedFailures } from "@rein/tools";
import type { StepContext } from "./step-context.ts";

/** The step's result with `status`, carrying everything the loop observed and spent. */
export function stepResult(step: StepContext, status: StepResult["status"], fields: Partial<StepResult> = {}): StepResult {
  const { body, loop } = step;
  return {
    schemaVersion: 1,
    runId: body.runId,
    stepId: body.stepId,
    attempt: body.attempt,
    status,
    output: null,
    summary: "",
    claims: [],
    observations: loop.observations,
    toolCalls: withAddressedFailures(loop.records, step.finalText),
    fingerprints: loop.records.map((record) => record.fingerprint),
    usage: loop.usage,
    turns: loop.turns,
    ...fields,
  };
}

/** The budget that stops the step before its next turn, if one is spent. */
export function budgetStop(step: StepContext): StepResult | undefined {
  const { budget } = step.body;
  if (step.loop.turns >= budget.maxTurns)
    return stepResult(step, "budget_exhausted", { summary: `turn budget of ${budget.maxTurns} spent`, error: "step turn budget spent" });
  if (totalTokens(step.loop.usage) >= budget.maxTokens) {
    return stepResult(step, "budget_exhausted", { summary: `token budget of ${budget.maxTokens} spent`, error: "step token budget spent" });
  }
  if (step.now() >= step.deadline)
    return stepResult(step, "budget_exhausted", { summary: `time budget of ${budget.maxMs} ms spent`, error: "step time budget spent" });
  return undefined;
}

/** After a turn's calls: the tool-call budget ran out on the last one. */
export function toolBudgetStop(step: StepContext): StepResult | undefined {
  if (step.loop.records.at(-1)?.status !== "budget_exhausted") return undefined;
  const { maxToolCalls } = step.body.budget;
  return stepResult(step, "budget_exhausted", {
    summary: `tool-call budget of ${maxToolCalls} spent`,
    error: "step tool-call budget spent",
  });
}

/**
 * After a turn's calls: one of those from `from` on is a side effect that may
 * or may not have happened (cut off by a crash). The step stops before
 * anything builds on it or repeats it.
 */
export function unknownOutcomeStop(step: StepContext, from: number): StepResult | undefined {
  const unknown = step.loop.records.slice(from).find((record) => record.status === "outcome_unknown");
  if (!unknown) return undefined;
  const what = `the outcome of ${unknown.name} is unknown after a crash`;
  return stepResult(step, "failed", { summary: what, error: `${what}; a person must check it` });
}

/** The model answered without calls: its text is the step's output, checked against the output contract. */
export function finalResult(step: StepContext, response: ModelResponse): StepResult {
  const text = textOf(response.content);
  step.finalText = text;
  if (response.stopReason === "max_tokens")
    return stepResult(step, "failed", { summary: text.slice(0, 500), error: "the model's final answer was cut off by max_tokens" });
  if (step.body.task.outputContract.format === "answer") {
    const parsed = FinalAnswer.safeParse(parseJsonText(text));
    if (!parsed.success)
      return stepResult(step, "failed", {
        output: text,
        summary: text.slice(0, 500),
        error: "the final answer is not {answer, claims, gaps} JSON",
      });
    return stepResult(step, "completed", { output: parsed.data, summary: parsed.data.answer.slice(0, 500), claims: parsed.data.claims });
  }
  return stepResult(step, "completed", { output: text, summary: text.slice(0, 500) });
}

/** The step pauses on `suspension`; the caller has saved the checkpoint it resumes from. */
export function suspendedResult(step: StepContext, suspension: Suspension): StepResult {
  const status = suspension.kind === "approval" ? "needs_approval" : suspension.kind === "delegate" ? "delegated" : "needs_context";
  const what =
    suspension.kind === "approval"
      ? `approval of ${suspension.tool}`
      : suspension.kind === "delegate"
        ? `a child step: ${suspension.request.title}`
        : `context: ${suspension.question}`;
  return stepResult(step, status, { summary: `waiting for ${what}`, suspension });
}
