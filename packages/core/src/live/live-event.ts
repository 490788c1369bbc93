import { z } from "zod";
import { Role } from "../contracts/common.ts";

/** One piece of model output as it streams, tagged with who produced it. */
export const LiveEvent = z.object({
  type: z.literal("text_delta"),
  runId: z.string().min(1),
  stepId: z.string().nullable(),
  role: Role,
  text: z.string(),
});
export type LiveEvent = z.infer<typeof LiveEvent>;
