import { z } from "zod";

/** The neutral content blocks of models/model-provider.ts, for what is stored (checkpoints). */
export const ContentBlockContract = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({
    type: z.literal("tool_call"),
    id: z.string(),
    name: z.string(),
    input: z.unknown(),
    incomplete: z.object({ reason: z.string(), rawArguments: z.string() }).optional(),
  }),
  z.object({
    type: z.literal("tool_result"),
    toolCallId: z.string(),
    content: z.string(),
    isError: z.boolean().optional(),
    images: z.array(z.object({ mediaType: z.string(), data: z.string() })).optional(),
  }),
]);

export const ModelMessageContract = z.object({
  role: z.enum(["user", "assistant"]),
  content: z.array(ContentBlockContract),
});
