import { OpenAIEmulatorRefusal, openAIDocs } from "./emulator-refusal.ts";

/** `^[a-zA-Z0-9_-]{1,64}$`: function and response-format names (function calling guide, API reference). */
const namePattern = /^[a-zA-Z0-9_-]+$/;
const maxNameLength = 64;

/** Refuses a function or format name OpenAI would refuse, with its documented message. */
export function checkName(name: unknown, param: string): void {
  if (typeof name !== "string" || name.length === 0) {
    throw new OpenAIEmulatorRefusal({
      message: `Missing required parameter: '${param}'.`,
      param,
      code: "missing_required_parameter",
      rule: openAIDocs.functionCalling,
    });
  }
  if (name.length > maxNameLength) {
    throw new OpenAIEmulatorRefusal({
      message: `Invalid '${param}': string too long. Expected a string with maximum length ${maxNameLength}, but got a string with length ${name.length} instead.`,
      param,
      code: "string_above_max_length",
      rule: openAIDocs.functionCalling,
    });
  }
  if (!namePattern.test(name)) {
    throw new OpenAIEmulatorRefusal({
      message: `Invalid '${param}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
      param,
      code: "invalid_value",
      rule: openAIDocs.functionCalling,
    });
  }
}

/**
 * Keywords strict Structured Outputs does not support (the structured
 * outputs guide's "Supported schemas"; the same set the `openai` SDK's
 * `lib/transform` refuses when it makes a schema strict).
 */
const strictUnsupported = [
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "oneOf",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "patternProperties",
  "propertyNames",
  "prefixItems",
  "additionalItems",
  "contains",
  "minContains",
  "maxContains",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "unevaluatedItems",
  "unevaluatedProperties",
  "$dynamicRef",
  "$dynamicAnchor",
];

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value);

/** Every subschema with its path as OpenAI's messages spell it (`('properties', 'a', 'items')`). */
function* subschemas(schema: Node, path: string[] = []): Generator<[Node, string[]]> {
  yield [schema, path];
  for (const keyword of ["properties", "$defs", "definitions", "patternProperties", "dependentSchemas"]) {
    const map = schema[keyword];
    if (isNode(map)) for (const [key, child] of Object.entries(map)) if (isNode(child)) yield* subschemas(child, [...path, keyword, key]);
  }
  for (const keyword of ["items", "additionalProperties", "not", "if", "then", "else", "contains", "additionalItems"]) {
    const child = schema[keyword];
    if (isNode(child)) yield* subschemas(child, [...path, keyword]);
  }
  for (const keyword of ["anyOf", "oneOf", "allOf", "prefixItems", "items"]) {
    const list = schema[keyword];
    if (Array.isArray(list))
      for (const [index, child] of list.entries()) if (isNode(child)) yield* subschemas(child, [...path, keyword, String(index)]);
  }
}

const context = (path: string[]): string => `In context=(${path.map((part) => `'${part}'`).join(", ")})`;
const typesOf = (node: Node): unknown[] => (Array.isArray(node.type) ? node.type : [node.type]);

/**
 * What every schema OpenAI takes must be, strict or not: JSON Schema
 * draft 2020-12 (so a draft-07 tuple, `items: [...]`, is refused: tuples are
 * `prefixItems`), and an array schema names its items. `subject` reads as
 * OpenAI's message does: "function 'read_file'" or "response_format 'plan'".
 * A function's parameters are an object schema; a non-strict response
 * format may be any schema (`rootObject: false`).
 */
export function checkSchema(
  schema: unknown,
  subject: string,
  param: string,
  rule: string,
  options: { rootObject: boolean } = { rootObject: true },
): void {
  const refuse: (path: string[], problem: string) => never = (path, problem) => {
    throw new OpenAIEmulatorRefusal({
      message: `Invalid schema for ${subject}: ${context(path)}, ${problem}`,
      param,
      code: "invalid_function_parameters",
      rule,
    });
  };
  if (!isNode(schema)) refuse([], "schema must be a JSON Schema object.");
  if (options.rootObject && schema.type !== "object")
    refuse([], `schema must be a JSON Schema of 'type: "object"', got 'type: "${String(schema.type)}"'.`);
  for (const [node, path] of subschemas(schema)) {
    if (Array.isArray(node.items)) {
      refuse(
        path,
        "'items' must be a schema object, not an array: the schema must match JSON Schema draft 2020-12, where a tuple is written with 'prefixItems'.",
      );
    }
    if (typesOf(node).includes("array") && node.items === undefined && node.prefixItems === undefined)
      refuse(path, "array schema missing items.");
  }
}

/**
 * What `strict: true` adds (structured outputs guide, "Supported schemas"):
 * the root is an object and not a union, every object closes with
 * `additionalProperties: false` and requires all of its properties
 * (optional fields are written as a union with `null`), and no unsupported
 * keyword appears.
 */
export function checkStrictSchema(schema: unknown, subject: string, param: string): void {
  checkSchema(schema, subject, param, openAIDocs.structuredOutputs);
  const refuse = (path: string[], problem: string): never => {
    throw new OpenAIEmulatorRefusal({
      message: `Invalid schema for ${subject}: ${context(path)}, ${problem}`,
      param,
      code: "invalid_json_schema",
      rule: openAIDocs.structuredOutputs,
    });
  };
  const root = schema as Node;
  if (root.anyOf !== undefined) refuse([], "root schema must not be 'anyOf'.");
  for (const [node, path] of subschemas(root)) {
    for (const keyword of strictUnsupported) if (node[keyword] !== undefined) refuse(path, `'${keyword}' is not permitted.`);
    const properties = isNode(node.properties) ? Object.keys(node.properties) : undefined;
    if (typesOf(node).includes("object") || properties !== undefined) {
      if (node.additionalProperties !== false) refuse(path, "'additionalProperties' is required to be supplied and to be false.");
      const required = Array.isArray(node.required) ? node.required : [];
      const missing = (properties ?? []).find((name) => !required.includes(name));
      if (missing !== undefined)
        refuse(path, `'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`);
    }
  }
}

/**
 * What strict decoding guarantees of a value, applied to what a brain
 * produced: a property the schema requires and lets be `null` that the
 * brain left out comes back `null`, as the model would have written it.
 * Walks objects and arrays by the schema; other keywords are the brain's
 * business.
 */
export function asStrictDecodingWrites(value: unknown, schema: unknown, root: unknown = schema): unknown {
  if (!isNode(schema)) return value;
  const resolved = typeof schema.$ref === "string" ? resolveRef(root, schema.$ref) : schema;
  if (!isNode(resolved)) return value;
  if (Array.isArray(resolved.anyOf) && value !== null) {
    const branch = resolved.anyOf.find((candidate) => isNode(candidate) && !typesOf(candidate).includes("null"));
    return asStrictDecodingWrites(value, branch, root);
  }
  if (Array.isArray(value)) return value.map((item) => asStrictDecodingWrites(item, resolved.items, root));
  if (!isNode(value) || !isNode(resolved.properties)) return value;
  const written: Node = {};
  for (const [name, property] of Object.entries(resolved.properties)) {
    if (name in value) written[name] = asStrictDecodingWrites(value[name], property, root);
    else if (allowsNull(property, root)) written[name] = null;
  }
  return written;
}

function allowsNull(schema: unknown, root: unknown): boolean {
  if (!isNode(schema)) return false;
  const resolved = typeof schema.$ref === "string" ? resolveRef(root, schema.$ref) : schema;
  if (!isNode(resolved)) return false;
  if (typesOf(resolved).includes("null")) return true;
  return Array.isArray(resolved.anyOf) && resolved.anyOf.some((branch) => allowsNull(branch, root));
}

function resolveRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  return ref
    .slice(2)
    .split("/")
    .reduce<unknown>((node, part) => (isNode(node) ? node[part.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined), root);
}
