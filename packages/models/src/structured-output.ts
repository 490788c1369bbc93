import type { StructuredOutputRequest } from "./model-provider.ts";

/**
 * Helpers shared by the adapters for structured output. The adapters only
 * parse JSON; validating it against the schema (and repairing) is the
 * caller's job, with zod.
 */

const wrapperKey = "value";

/**
 * Tool inputs must be JSON objects, so a non-object output schema (an array,
 * a string) is wrapped as `{ value: … }` and unwrapped on the way back.
 */
export function objectSchemaFor(schema: Record<string, unknown>): { schema: Record<string, unknown>; wrapped: boolean } {
  if (schema.type === "object") return { schema, wrapped: false };
  return {
    schema: { type: "object", properties: { [wrapperKey]: schema }, required: [wrapperKey], additionalProperties: false },
    wrapped: true,
  };
}

export function unwrapOutput(input: unknown, wrapped: boolean): unknown {
  if (!wrapped) return input;
  return typeof input === "object" && input !== null && wrapperKey in input ? input[wrapperKey] : undefined;
}

/** Keywords OpenAI's strict structured outputs reject. */
const strictUnsupported = ["oneOf", "allOf", "not", "if", "then", "else", "patternProperties", "dependentRequired", "dependentSchemas"];

/**
 * Whether OpenAI's `strict: true` accepts the schema: every object closes
 * with `additionalProperties: false` and requires all its properties, and no
 * unsupported keyword appears. Optional fields (zod's `.optional()`) fail
 * this, and the request falls back to non-strict.
 */
export function isStrictCompatible(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(isStrictCompatible);
  if (typeof schema !== "object" || schema === null) return true;
  const node = schema as Record<string, unknown>;
  if (strictUnsupported.some((keyword) => keyword in node)) return false;
  const properties = node.properties;
  if (node.type === "object" || (typeof properties === "object" && properties !== null)) {
    if (node.additionalProperties !== false) return false;
    const names = Object.keys((properties as Record<string, unknown> | undefined) ?? {});
    const required = Array.isArray(node.required) ? node.required : [];
    if (!names.every((name) => required.includes(name))) return false;
  }
  return Object.entries(node).every(([key, value]) => key === "enum" || key === "const" || isStrictCompatible(value));
}

/** OpenAI names a response format with at most 64 of [a-zA-Z0-9_-]. */
export function responseFormatName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64) || "output";
}

/** The instruction added to the system prompt when the server has no schema-enforcing JSON mode. */
export function outputInstruction(output: StructuredOutputRequest): string {
  return [
    `Reply with one JSON value only, no prose and no code fence, named "${output.name}"`,
    output.description ? ` (${output.description})` : "",
    `, matching this JSON Schema:\n${JSON.stringify(output.schema)}`,
  ].join("");
}
