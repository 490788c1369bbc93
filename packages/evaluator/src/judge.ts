import { z } from "zod";
import { completeStructured, type ModelProvider, type StepResult, type TraceLog, type Usage } from "@rein/core";

export const JudgeScore = z.object({
  verdict: z.enum(["pass", "fail", "unsure"]),
  reasons: z.array(z.string()).min(1),
});
export type JudgeScore = z.infer<typeof JudgeScore>;

const JUDGE_SYSTEM = `You are the judge in Rein. You score only what code could not check.
For each criterion, decide from the step's output and observations whether it is met.
Reply with JSON: {"verdict": "pass" | "fail" | "unsure", "reasons": ["..."]}. Say "unsure" when the evidence does not decide it.`;

const JUDGE_SCHEMA = z.toJSONSchema(JudgeScore) as Record<string, unknown>;
delete JUDGE_SCHEMA.$schema;

export async function judge(
  provider: ModelProvider,
  criteria: readonly string[],
  result: StepResult,
  trace: TraceLog,
  signal?: AbortSignal,
): Promise<{ score: JudgeScore; usage: Usage }> {
  const observations = result.observations.map((observation) => `- ${observation.id} (${observation.tool}, ${observation.status}): ${observation.content.slice(0, 400)}`);
  const text = [
    "Criteria to judge:",
    ...criteria.map((criterion) => `- ${criterion}`),
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
    { schema: JudgeScore, signal },
  );
  return { score: value, usage };
}
