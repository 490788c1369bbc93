import { z } from "zod";
import { completeStructured, type ModelProvider,
  type ModelStreamEvent, type StepResult, type TraceLog, type Usage } from "@rein/core";

export const JudgeScore = z.object({
  verdict: z.enum(["pass", "fail", "unsure"]),
  reasons: z.array(z.string()).min(1),
  /** Flagged risks that materialized in this step, copied from the list the judge was given. */
  risks_hit: z.array(z.string()).default([]),
});
export type JudgeScore = z.infer<typeof JudgeScore>;

const JUDGE_SYSTEM = `You are the judge in Rein. You score only what code could not check.
For each criterion, decide from the step's output and observations whether it is met.
For each flagged risk, decide whether it materialized in this step; list those that did in risks_hit.
Reply with JSON: {"verdict": "pass" | "fail" | "unsure", "reasons": ["..."], "risks_hit": []}. Say "unsure" when the evidence does not decide it.`;

const JUDGE_SCHEMA = z.toJSONSchema(JudgeScore, { io: "input" }) as Record<string, unknown>;
delete JUDGE_SCHEMA.$schema;

export interface JudgeInput {
  /** Criteria only the judge can decide. */
  criteria: readonly string[];
  /** Risks the planner flagged. */
  risks: readonly string[];
}

/** The judge role: structured output, its own provider, only what the rules could not check. */
export async function judge(
  provider: ModelProvider,
  input: JudgeInput,
  result: StepResult,
  trace: TraceLog,
  signal?: AbortSignal,
  onEvent?: (event: ModelStreamEvent) => void,
): Promise<{ score: JudgeScore; usage: Usage }> {
  const observations = result.observations.map((observation) => `- ${observation.id} (${observation.tool}, ${observation.status}): ${observation.content.slice(0, 400)}`);
  const text = [
    "Criteria to judge:",
    ...(input.criteria.length > 0 ? input.criteria.map((criterion) => `- ${criterion}`) : ["- (none)"]),
    "Flagged risks:",
    ...(input.risks.length > 0 ? input.risks.map((risk) => `- ${risk}`) : ["- (none)"]),
    `Step output: ${typeof result.output === "string" ? result.output : JSON.stringify(result.output)}`,
    "Observations:",
    ...observations,
  ].join("\n");
  const { value, usage } = await completeStructured(
    provider,
    {
      role: "judge",
      system: JUDGE_SYSTEM,
      messages: [{ role: "user", content: [{ type: "text", text }] }],
      output: { name: "judge_score", schema: JUDGE_SCHEMA },
      metadata: { runId: result.runId, stepId: result.stepId },
    },
    { trace, runId: result.runId, stepId: result.stepId },
    { schema: JudgeScore, signal, onEvent },
  );
  return { score: value, usage };
}
