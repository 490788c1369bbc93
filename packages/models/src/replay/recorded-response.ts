import { z } from "zod";
import { Role, Usage } from "@rein/contracts";
import { ContentBlock } from "@rein/contracts/model";
import type { ModelResponse } from "../model-provider.ts";

const StopReasonContract = z.enum(["end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal", "other"]);

/** One recorded model response, as a replay file or a re-served recording holds it. */
export const RecordedResponse = z.object({
  content: z.array(ContentBlock),
  stopReason: StopReasonContract,
  usage: Usage,
  provider: z.string(),
  model: z.string(),
  requestId: z.string().optional(),
  output: z.unknown().optional(),
  retries: z.number().int().nonnegative(),
  priceKnown: z.boolean().optional(),
}) satisfies z.ZodType<ModelResponse>;

/** A replay file: one list served in arrival order, or one list per role. */
export const ReplayFile = z.union([z.array(RecordedResponse), z.partialRecord(Role, z.array(RecordedResponse))]);

/** The parts of a `model.responded` trace payload a replay serves again; absent parts take their defaults. */
export const RespondedPayload = z.object({
  role: Role,
  content: z.array(ContentBlock).default([]),
  stopReason: StopReasonContract.catch("end_turn"),
  provider: z.string().default("replay"),
  model: z.string().default("recorded"),
});
