import { z } from "zod";

/**
 * The JSON Schema a model is shown for a zod schema: what the model may send
 * (the input side), with anything JSON Schema cannot express left open, and
 * without the `$schema` draft marker, which providers reject inside tool and
 * output schemas.
 */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _draft, ...json } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
  return json;
}
