import type { ModelMessage, ModelToolSchema } from "@rein/contracts/model";
import type { Observation } from "@rein/contracts/calls";
import type { TraceWriter } from "@rein/trace";
import { fitContextBudget } from "./context-budget.ts";

export interface CompactContextOptions {
  system: string;
  tools?: readonly ModelToolSchema[];
  /** The worker role's `contextTokens`; absent means no budget pass. */
  contextTokens?: number;
  observations: readonly Observation[];
  trace: TraceWriter;
  ids: { runId: string; stepId: string; parentStepId: string | null };
}

/**
 * The messages to send this turn: the step's history fitted to the context
 * budget. What was dropped is recorded as `context.compacted` next to the
 * model call it shaped; the full history stays in the loop, so each turn
 * compiles afresh from it.
 */
export async function compactContext(messages: readonly ModelMessage[], options: CompactContextOptions): Promise<ModelMessage[]> {
  if (options.contextTokens === undefined) return [...messages];
  const compiled = fitContextBudget({
    system: options.system,
    messages,
    tools: options.tools,
    budgetTokens: options.contextTokens,
    // Looked up only for a result that is dropped: a map of every observation was built on every turn.
    observationIds: { get: (callId) => options.observations.find((observation) => observation.callId === callId)?.id },
  });
  if (compiled.dropped.length > 0 || compiled.overBudget) {
    await options.trace.append({
      ...options.ids,
      kind: "context.compacted",
      payload: {
        budgetTokens: options.contextTokens,
        estimatedBefore: compiled.originalTokens,
        estimatedAfter: compiled.estimatedTokens,
        overBudget: compiled.overBudget,
        dropped: compiled.dropped,
      },
    });
  }
  return compiled.messages;
}
