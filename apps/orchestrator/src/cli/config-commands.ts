import { ReinConfig } from "@rein/runtime";
import { z } from "zod";
import type { CommandHandler } from "./command-spec.ts";
import type { CONFIG } from "./command-specs.ts";
import { out } from "./output.ts";

/** The JSON Schema of rein.config.json, generated from the zod schema the loader validates with. */
export function configJsonSchema(): Record<string, unknown> {
  const schema = closeObjects(z.toJSONSchema(ReinConfig, { io: "input", unrepresentable: "any" })) as Record<string, unknown>;
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  // Editors put the schema's own address in the file; the loader accepts it.
  return {
    ...schema,
    title: "rein.config.json",
    properties: { $schema: { type: "string", description: "The JSON Schema this file follows (for editors)." }, ...properties },
  };
}

/** The loader refuses unknown keys at every depth, so the schema says so too (zod's input schema leaves objects open). */
function closeObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closeObjects);
  if (node === null || typeof node !== "object") return node;
  const copy = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, closeObjects(value)]));
  if (copy.type === "object" && copy.properties !== undefined && copy.additionalProperties === undefined) copy.additionalProperties = false;
  return copy;
}

export const configCommand: CommandHandler<typeof CONFIG> = async (_schema) => {
  out(JSON.stringify(configJsonSchema(), null, 2));
  return 0;
};
