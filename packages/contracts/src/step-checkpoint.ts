import { z } from "zod";
import { Usage } from "./usage.ts";
import { ContentBlock, ModelMessage } from "./model-message.ts";
import { ToolCallRecord } from "./step-result.ts";
import { Observation } from "./tool-events.ts";

/**
 * A worker's inner loop, saved after every turn and when it suspends, so a
 * resumed or recovered step continues where it was instead of starting over.
 */
export const StepCheckpoint = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  stepId: z.string(),
  attempt: z.number().int().positive(),
  messages: z.array(ModelMessage),
  observations: z.array(Observation),
  records: z.array(ToolCallRecord),
  usage: Usage,
  turns: z.number().int().nonnegative(),
  /** Calls of the last model turn not yet answered: the one the step suspended on, and those after it. */
  pending: z
    .object({
      answered: z.array(ContentBlock),
      calls: z.array(ContentBlock),
    })
    .optional(),
  savedAt: z.string(),
});
export type StepCheckpoint = z.infer<typeof StepCheckpoint>;
