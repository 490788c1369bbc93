import { z } from "zod";
import { completeStructured, type ContextJob, type ModelProvider, type TraceLog } from "@rein/core";

/** The planner's decision on a worker's request for context. */
export const ContextAnswer = z
  .object({
    evidence_ids: z.array(z.string()).default([]),
    refusal: z.string().min(3).optional(),
  })
  .refine((answer) => answer.evidence_ids.length > 0 || answer.refusal !== undefined, {
    message: "pass at least one evidence id, or refuse with a reason",
  });
export type ContextAnswer = z.infer<typeof ContextAnswer>;

const CONTEXT_SYSTEM = `You are the planner of Rein. A worker carrying out one step asked you for more context.
Decide what it may know: pass evidence ids from the run's evidence list that answer its question, or refuse with a reason.
Pass only what the step needs. Reply with JSON: {"evidence_ids": ["obs_..."], "refusal": "..."}.`;

const CONTEXT_SCHEMA = z.toJSONSchema(ContextAnswer, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
delete CONTEXT_SCHEMA.$schema;

export function renderContextRequest(job: ContextJob): string {
  return [
    `Context request from step ${job.stepId}: ${job.question}`,
    `Goal: ${job.goal}`,
    `The step's task: ${job.task}`,
    `Already handed to it: ${job.handed.join(", ") || "nothing"}`,
    "Run evidence (id: summary):",
    ...job.evidence.map((entry) => `- ${entry.id}: ${entry.summary}`),
  ].join("\n");
}

/** Asks the planner model what to pass; only evidence ids of this run count. */
export async function answerContextRequest(job: ContextJob, provider: ModelProvider, trace: TraceLog, signal?: AbortSignal): Promise<ContextAnswer> {
  const known = new Set(job.evidence.map((entry) => entry.id));
  const { value } = await completeStructured(
    provider,
    {
      role: "planner",
      system: CONTEXT_SYSTEM,
      messages: [{ role: "user", content: [{ type: "text", text: renderContextRequest(job) }] }],
      output: { name: "context_answer", schema: CONTEXT_SCHEMA },
      metadata: { runId: job.runId, stepId: job.stepId },
    },
    { trace, runId: job.runId, stepId: job.stepId },
    {
      schema: ContextAnswer,
      check: (answer) => {
        const unknown = answer.evidence_ids.filter((id) => !known.has(id));
        return unknown.length > 0 ? `evidence_ids names ${unknown.join(", ")}, which are not in the run's evidence list` : undefined;
      },
      signal,
    },
  );
  return value;
}
