import type { standardTextFormat } from "openai/helpers/standard-schema";

/** Turns a JSON schema into the one strict Structured Outputs takes; throws where it cannot. */
export type ToStrictJsonSchema = (schema: Record<string, unknown>) => Record<string, unknown>;

/**
 * The SDK's own strictifier, loaded with the SDK: `standardTextFormat`
 * given the schema itself (its documented override for validators that
 * cannot produce one), which rewrites a `oneOf` whose branches are provably
 * exclusive (a zod discriminated union) as `anyOf` and then applies
 * `lib/transform`'s `toStrictJsonSchema`. The validator is never called:
 * Rein validates the answer itself, with zod.
 */
export function sdkStrictifier(format: typeof standardTextFormat): ToStrictJsonSchema {
  const unused = { "~standard": { version: 1 as const, vendor: "rein", validate: (value: unknown) => ({ value }) } };
  return (schema) => format(unused, "strict", { schema }).schema as Record<string, unknown>;
}

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value);
const typesOf = (node: Node): unknown[] => (Array.isArray(node.type) ? node.type : [node.type]);

/** Keywords whose value is one schema, a list of schemas, or a map of schemas, walked the same way here as by the SDK. */
const singleSchema = ["items", "additionalProperties", "not", "contains"];
const schemaLists = ["anyOf", "oneOf", "allOf", "prefixItems"];
const schemaMaps = ["properties", "$defs", "definitions"];

/**
 * A schema as OpenAI's strict Structured Outputs takes it, or the schema
 * as it was with `strict: false` when it cannot be made strict (a keyword
 * strict mode does not support, an open object). The strictifying is the
 * `openai` SDK's own (`sdkStrictifier`: every property required, objects
 * closed, exclusive unions as `anyOf`); what the SDK leaves to the schema's
 * author is done first: an optional property that does not admit `null`
 * becomes `anyOf: [its schema, {type: "null"}]`, as the structured outputs
 * guide says to write optional fields. `restore` undoes that on the model's
 * answer, so what the caller validates has those fields absent, not null.
 */
export function strictOutputSchema(
  schema: Record<string, unknown>,
  toStrict: ToStrictJsonSchema,
): { schema: Record<string, unknown>; strict: boolean } {
  try {
    return { schema: toStrict(withOptionalAsNullable(structuredClone(schema), schema) as Record<string, unknown>), strict: true };
  } catch {
    return { schema, strict: false };
  }
}

/**
 * A tool's parameters, strict only where they can be without changing
 * what a call may say: a schema with an optional property stays as it was
 * (`strict: false`), since strict mode would make the model write `null`
 * for it and the tool's own validation would then see a value it did not
 * ask for, in the call and in every streamed fragment of it.
 */
export function strictToolSchema(
  schema: Record<string, unknown>,
  toStrict: ToStrictJsonSchema,
): { schema: Record<string, unknown>; strict: boolean } {
  const nullable = JSON.stringify(withOptionalAsNullable(structuredClone(schema), schema));
  return nullable === JSON.stringify(schema) ? strictOutputSchema(schema, toStrict) : { schema, strict: false };
}

function withOptionalAsNullable(node: unknown, root: Node): unknown {
  if (!isNode(node)) return node;
  for (const keyword of singleSchema) if (isNode(node[keyword])) node[keyword] = withOptionalAsNullable(node[keyword], root);
  for (const keyword of schemaLists)
    if (Array.isArray(node[keyword])) node[keyword] = (node[keyword] as unknown[]).map((child) => withOptionalAsNullable(child, root));
  for (const keyword of schemaMaps) {
    const map = node[keyword];
    if (!isNode(map)) continue;
    for (const [name, child] of Object.entries(map)) map[name] = withOptionalAsNullable(child, root);
  }
  if (isNode(node.properties)) {
    const required = Array.isArray(node.required) ? node.required : [];
    for (const [name, child] of Object.entries(node.properties)) {
      if (!required.includes(name) && !admitsNull(child, root)) node.properties[name] = { anyOf: [child, { type: "null" }] };
    }
  }
  return node;
}

/**
 * The model's answer to a schema made strict, read against the original:
 * a `null` the model wrote for a property that was optional and did not
 * admit `null` becomes an absent property, recursively through objects,
 * arrays and unions.
 */
export function withoutAddedNulls(value: unknown, schema: unknown, root: unknown = schema): unknown {
  const node = resolved(schema, root);
  if (!node || value === null) return value;
  if (Array.isArray(value)) return isNode(node.items) ? value.map((item) => withoutAddedNulls(item, node.items, root)) : value;
  if (!isNode(value)) return value;
  const branches = [...(Array.isArray(node.anyOf) ? node.anyOf : []), ...(Array.isArray(node.oneOf) ? node.oneOf : [])];
  const branch = branches.find((candidate) => {
    const properties = resolved(candidate, root)?.properties;
    return isNode(properties) && Object.keys(value).every((key) => key in properties);
  });
  if (branch) return withoutAddedNulls(value, branch, root);
  if (!isNode(node.properties)) return value;
  const required = Array.isArray(node.required) ? node.required : [];
  const restored: Node = {};
  for (const [key, item] of Object.entries(value)) {
    const property = node.properties[key];
    if (item === null && property !== undefined && !required.includes(key) && !admitsNull(property, root)) continue;
    restored[key] = property === undefined ? item : withoutAddedNulls(item, property, root);
  }
  return restored;
}

function resolved(schema: unknown, root: unknown): Node | undefined {
  if (!isNode(schema)) return undefined;
  if (typeof schema.$ref !== "string" || !schema.$ref.startsWith("#/")) return schema;
  const target = schema.$ref
    .slice(2)
    .split("/")
    .reduce<unknown>((node, part) => (isNode(node) ? node[part.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined), root);
  return isNode(target) ? target : undefined;
}

function admitsNull(schema: unknown, root: unknown): boolean {
  const node = resolved(schema, root);
  if (!node) return schema === true;
  if (Object.keys(node).length === 0 || typesOf(node).includes("null")) return true;
  if (node.const === null || (Array.isArray(node.enum) && node.enum.includes(null))) return true;
  return [node.anyOf, node.oneOf].some((branches) => Array.isArray(branches) && branches.some((branch) => admitsNull(branch, root)));
}
