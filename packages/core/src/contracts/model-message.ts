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

/** A tool offered to a model (models/model-provider.ts's ModelToolSchema), for what is stored (prompt copies). */
export const ModelToolSchemaContract = z.object({
  name: z.string(),
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
});

/** A structured-output request (models/model-provider.ts's StructuredOutputRequest), for what is stored (prompt copies). */
export const StructuredOutputContract = z.object({
  name: z.string(),
  description: z.string().optional(),
  schema: z.record(z.string(), z.unknown()),
});
