import { Ajv2020 } from "ajv/dist/2020.js";

/** Where the Messages API's JSON Schema rules are written down. */
export const schemaDocs = {
  limitations: "https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations",
  complexity: "https://platform.claude.com/docs/en/build-with-claude/structured-outputs#schema-complexity-limits",
  draft202012:
    "https://platform.claude.com/docs/en/api/messages (tools: input_schema is a JSON Schema, https://json-schema.org/draft/2020-12)",
} as const;

const supportedFormats = new Set(["date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"]);

// "Not supported: ... Numerical constraints (such as minimum, maximum, multipleOf), String constraints
// (minLength, maxLength), Array constraints beyond minItems of 0 or 1" (structured outputs page).
const unsupportedKeywords = [
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "maxItems",
  "uniqueItems",
  "contains",
  "minContains",
  "maxContains",
  "minProperties",
  "maxProperties",
  "patternProperties",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
  "dependentRequired",
  "dependentSchemas",
  "prefixItems",
  "oneOf",
];

type Schema = Record<string, unknown>;
const isSchema = (value: unknown): value is Schema => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The first way `schema` falls outside what structured outputs and strict
 * tools accept (`output_config.format`, `strict: true`), named by path;
 * undefined when it is within them. Every object closes with
 * `additionalProperties: false`, only the listed keywords and string
 * formats appear, `minItems` is 0 or 1, enums hold primitives, `$ref`s are
 * local and not recursive.
 */
export function structuredSchemaProblem(schema: Schema, path: string): string | undefined {
  return walk(schema, path, schema, []);
}

function walk(node: Schema, path: string, root: Schema, refs: string[]): string | undefined {
  for (const keyword of unsupportedKeywords) {
    if (keyword in node) return `${path}: '${keyword}' is not supported in structured output schemas`;
  }
  const isObject = node.type === "object" || (Array.isArray(node.type) && node.type.includes("object")) || isSchema(node.properties);
  if (isObject && node.additionalProperties !== false) {
    return `${path}: For 'object' type, 'additionalProperties' must be explicitly set to false`;
  }
  if (typeof node.format === "string" && !supportedFormats.has(node.format))
    return `${path}.format: '${node.format}' is not a supported string format`;
  if (node.minItems !== undefined && node.minItems !== 0 && node.minItems !== 1) {
    return `${path}.minItems: only values 0 and 1 are supported, got ${JSON.stringify(node.minItems)}`;
  }
  if (Array.isArray(node.enum) && node.enum.some((value) => typeof value === "object" && value !== null)) {
    return `${path}.enum: only strings, numbers, booleans and null are supported`;
  }
  if (typeof node.$ref === "string") {
    if (!node.$ref.startsWith("#")) return `${path}.$ref: external references are not supported`;
    if (refs.includes(node.$ref)) return `${path}.$ref: recursive schemas are not supported`;
    if (Array.isArray(node.allOf)) return `${path}: 'allOf' with '$ref' is not supported`;
    const target = resolveLocal(root, node.$ref);
    if (!target) return `${path}.$ref: '${node.$ref}' does not resolve`;
    const problem = walk(target, node.$ref, root, [...refs, node.$ref]);
    if (problem) return problem;
  }
  for (const [key, child] of children(node)) {
    const problem = walk(child, `${path}.${key}`, root, refs);
    if (problem) return problem;
  }
  return undefined;
}

/** The subschemas of a node, by the keyword path that holds them. */
function children(node: Schema): [string, Schema][] {
  const found: [string, Schema][] = [];
  for (const key of ["properties", "$defs", "definitions"]) {
    const members = node[key];
    if (isSchema(members)) for (const [name, child] of Object.entries(members)) if (isSchema(child)) found.push([`${key}.${name}`, child]);
  }
  if (isSchema(node.items)) found.push(["items", node.items]);
  for (const key of ["anyOf", "allOf"]) {
    const variants = node[key];
    if (!Array.isArray(variants)) continue;
    for (const [index, child] of variants.entries()) if (isSchema(child)) found.push([`${key}.${index}`, child]);
  }
  return found;
}

function resolveLocal(root: Schema, ref: string): Schema | undefined {
  let node: unknown = root;
  for (const part of ref.replace(/^#\/?/, "").split("/").filter(Boolean))
    node = isSchema(node) ? node[part.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
  return isSchema(node) ? node : undefined;
}

/** Optional and union-typed parameters of a schema, counted toward a request's complexity limits. */
export function schemaComplexity(schema: Schema): { optional: number; unions: number } {
  let optional = 0;
  let unions = 0;
  const visit = (node: Schema) => {
    if (isSchema(node.properties)) {
      const required = Array.isArray(node.required) ? node.required : [];
      for (const [name, property] of Object.entries(node.properties)) {
        if (!required.includes(name)) optional += 1;
        if (isSchema(property) && (Array.isArray(property.anyOf) || Array.isArray(property.type))) unions += 1;
      }
    }
    for (const [, child] of children(node)) visit(child);
  };
  visit(schema);
  return { optional, unions };
}

let ajv: Ajv2020 | undefined;

/**
 * Whether a tool's `input_schema` is a valid draft 2020-12 schema, checked
 * against the draft's own meta-schema (so a draft-07 tuple `items: [...]`
 * fails, as the API refuses it). `$schema` is left out of the check: it
 * names a dialect and constrains nothing.
 */
export function isDraft202012(schema: Schema): boolean {
  ajv ??= new Ajv2020({ strict: false, validateFormats: false });
  const { $schema: _dialect, ...rest } = schema;
  return ajv.validateSchema(rest) === true;
}
