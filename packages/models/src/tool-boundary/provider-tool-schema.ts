import type { Ajv2020 } from "ajv/dist/2020.js";
import { canonicalJson, errorMessage } from "@rein/contracts";
import { SchemaProblem, toDraft2020 } from "./draft-2020-schema.ts";

/** A tool's input schema as it goes to a provider. */
export interface ProviderToolSchema {
  /** Valid JSON Schema draft 2020-12 with an object root: the original object itself when it already was. */
  schema: Record<string, unknown>;
  /** Why the original could not be sent, when `schema` is the permissive stand-in. */
  problem?: string;
}

/**
 * What a tool whose schema cannot be sent is offered with: any object. The
 * executor still checks the call's arguments against the tool's own schema,
 * and a mismatch goes back to the model saying what was expected.
 */
export const PERMISSIVE_TOOL_SCHEMA: Readonly<Record<string, unknown>> = Object.freeze({ type: "object" });

// Ajv (~120 ms to load and to compile the 2020-12 meta-schema) is loaded with the first tool schema, not with @rein/models.
let ajvLoading: Promise<Ajv2020> | undefined;

function loadAjv(): Promise<Ajv2020> {
  // unicodeRegExp off: a `pattern` such as "^[a-z\-]+$" is fine for the providers, and the `u` flag would call it invalid.
  ajvLoading ??= import("ajv/dist/2020.js").then(
    ({ Ajv2020 }) => new Ajv2020({ strict: false, validateFormats: false, addUsedSchema: false, unicodeRegExp: false }),
  );
  return ajvLoading;
}

// A tool's schema object is the same for every call of every step (the executor caches them), so each is rewritten and checked once.
const normalised = new WeakMap<object, Promise<ProviderToolSchema>>();

/**
 * A tool's input schema in the form every provider accepts: JSON Schema
 * draft 2020-12 (toDraft2020), checked against the 2020-12 meta-schema with
 * its references resolved and its patterns compiled (by Ajv, the validator
 * Rein already depends on). A schema that cannot be made valid becomes
 * PERMISSIVE_TOOL_SCHEMA with the problem said, so one bad tool never fails
 * the requests of a whole step.
 */
export function providerToolSchema(schema: Record<string, unknown>): Promise<ProviderToolSchema> {
  let result = normalised.get(schema);
  if (!result) {
    result = normalise(schema);
    normalised.set(schema, result);
  }
  return result;
}

async function normalise(original: Record<string, unknown>): Promise<ProviderToolSchema> {
  let schema: Record<string, unknown>;
  try {
    schema = toDraft2020(original);
  } catch (error) {
    if (error instanceof SchemaProblem) return { schema: { ...PERMISSIVE_TOOL_SCHEMA }, problem: error.message };
    // A getter that throws, a proxy: not a schema either, and no reason to fail the call.
    return { schema: { ...PERMISSIVE_TOOL_SCHEMA }, problem: `the input schema could not be read: ${errorMessage(error)}` };
  }
  const problem = await invalidity(schema);
  if (problem) return { schema: { ...PERMISSIVE_TOOL_SCHEMA }, problem };
  // Unchanged, the original object goes out: per-object caches downstream (prompt blobs, token estimates) keep hitting.
  return { schema: sameJson(schema, original) ? original : schema };
}

function sameJson(left: unknown, right: unknown): boolean {
  try {
    return canonicalJson(left) === canonicalJson(right);
  } catch {
    return false;
  }
}

/** What makes `schema` unusable as draft 2020-12, or undefined when nothing does. */
async function invalidity(schema: Record<string, unknown>): Promise<string | undefined> {
  try {
    // A number JSON cannot carry (NaN, Infinity) would not survive the trip to the provider.
    canonicalJson(schema);
  } catch (error) {
    return `the input schema has no JSON form: ${errorMessage(error)}`;
  }
  const ajv = await loadAjv();
  if (!ajv.validateSchema(schema))
    return `the input schema is not valid JSON Schema draft 2020-12: ${ajv.errorsText(ajv.errors, { dataVar: "schema" })}`;
  try {
    ajv.compile(schema);
  } catch (error) {
    return `the input schema cannot be used: ${errorMessage(error)}`;
  } finally {
    ajv.removeSchema(schema);
  }
  return undefined;
}
