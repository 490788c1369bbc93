import type { RunState } from "@rein/contracts/run";
import type { AnswerView, CallView, EvidenceLink } from "./run-view-model.ts";

/**
 * The run's final answer with each claim's evidence resolved to the call
 * that observed it, how the evaluator found the claim, and the gaps. Null
 * while the run has no result.
 */
export function answerView(state: RunState | null, calls: readonly CallView[]): AnswerView | null {
  const result = state?.result;
  if (!result) return null;
  const callOf = new Map(calls.filter((call) => call.observationId !== null).map((call) => [call.observationId, call]));
  const entryOf = new Map(state.evidence.map((entry) => [entry.id, entry]));
  const link = (id: string): EvidenceLink => {
    const call = callOf.get(id);
    const entry = entryOf.get(id);
    return {
      id,
      callKey: call?.key ?? null,
      stepId: call?.stepId ?? entry?.stepId ?? null,
      tool: call?.tool ?? entry?.tool ?? null,
      summary: entry?.summary ?? null,
      failed: call?.failed ?? (entry ? entry.status !== "ok" : false),
    };
  };
  const checked = new Map(result.claims.map((check) => [check.text, check.status]));
  return {
    text: result.answer?.answer ?? null,
    summary: result.summary,
    partial: result.partial,
    claims: (result.answer?.claims ?? []).map((claim) => ({
      text: claim.text,
      status: checked.get(claim.text) ?? "unchecked",
      evidence: claim.evidence.map(link),
    })),
    gaps: result.answer?.gaps ?? [],
    missing: result.missing,
  };
}
