import type { ErrorObject, ValidateFunction } from "ajv";
import { z } from "zod";
import { ReinError } from "@rein/contracts";

/** One way a value breaks a JSON Schema: where, and what the schema wanted. */
export interface SchemaIssue {
  path: string[];
  message: string;
}

export type SchemaCheck = (value: unknown) => SchemaIssue[];

// Ajv is loaded with the first plugin, not with @rein/plugins: most processes never load one.
let ajvLoading: Promise<{ compile(schema: Record<string, unknown>): ValidateFunction }> | undefined;

function loadAjv() {
  ajvLoading ??= import("ajv").then(({ Ajv }) => new Ajv({ allErrors: true, strict: false, validateFormats: false }));
  return ajvLoading;
}

/**
 * Compiles a plugin's JSON Schema with Ajv, the full validator (zod's
 * `fromJSONSchema` covers only part of the standard, and a plugin's output
 * must be checked exactly). A schema Ajv cannot compile is a `config_invalid`
 * error naming `where`.
 */
export async function compileJsonSchema(schema: Record<string, unknown>, where: string): Promise<SchemaCheck> {
  const ajv = await loadAjv();
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    throw new ReinError("config_invalid", `${where} is not a valid JSON Schema: ${(error as Error).message}`, { cause: error });
  }
  return (value) => (validate(value) ? [] : (validate.errors ?? []).map(issueOf));
}

function issueOf(error: ErrorObject): SchemaIssue {
  const path = error.instancePath
    .split("/")
    .slice(1)
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"));
  const missing = error.keyword === "required" ? (error.params as { missingProperty?: string }).missingProperty : undefined;
  if (missing !== undefined) return { path: [...path, missing], message: "is required" };
  const extra = error.keyword === "additionalProperties" ? (error.params as { additionalProperty?: string }).additionalProperty : undefined;
  if (extra !== undefined) return { path: [...path, extra], message: "is not allowed here; remove it" };
  return { path, message: error.message ?? `fails ${error.keyword}` };
}

/** The check as a zod schema, so the executor's input and output stages use it like any tool's. */
export function zodOfCheck(check: SchemaCheck): z.ZodType<Record<string, unknown>> {
  return z.unknown().superRefine((value, context) => {
    for (const issue of check(value)) context.addIssue({ code: "custom", path: issue.path, message: issue.message });
  }) as unknown as z.ZodType<Record<string, unknown>>;
}
