/**
 * Rewrites a tool's input schema, whatever draft it was written in, as JSON
 * Schema draft 2020-12, the dialect Anthropic checks every tool's
 * `input_schema` against (a request with one invalid schema is refused
 * whole) and OpenAI's function `parameters` follow. MCP servers built on
 * the MCP SDK's `registerTool` emit draft-07 (tuples as `items: [...]`),
 * plugins may send draft-04; Rein's own zod schemas are 2020-12 already and
 * come through unchanged.
 *
 * The rules are the drafts' own migration notes
 * (https://json-schema.org/draft/2020-12/release-notes,
 * https://json-schema.org/draft/2019-09/release-notes): `$schema` dropped (a
 * provider takes the dialect from the API, and some refuse the keyword),
 * tuple `items` → `prefixItems` with `additionalItems` → `items`,
 * `definitions` → `$defs` (and every `$ref` into them), `dependencies` →
 * `dependentRequired` / `dependentSchemas`, draft-04's boolean
 * `exclusiveMinimum`/`exclusiveMaximum` → the number form, draft-04's `id`
 * → `$anchor` (a fragment) or `$id`. Local `$ref`s are kept: both providers
 * resolve them in tool schemas; what strict modes refuse is the adapters'
 * business (the SDKs' own strict transforms).
 */

/** Why a schema could not be rewritten; the boundary then sends a permissive one. */
export class SchemaProblem extends Error {}

/** Nesting deeper than this is not a tool's input schema (and would overflow the stack of whoever walks it). */
const MAX_DEPTH = 64;

const ONE_SCHEMA = new Set([
  "additionalProperties",
  "contains",
  "contentSchema",
  "else",
  "if",
  "not",
  "propertyNames",
  "then",
  "unevaluatedItems",
  "unevaluatedProperties",
]);
const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
const SCHEMA_MAPS = new Set(["$defs", "definitions", "dependentSchemas", "patternProperties", "properties"]);

type Schema = Record<string, unknown>;

const isObject = (value: unknown): value is Schema => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The 2020-12 form of `schema` as a tool's input: an object schema. Throws
 * a SchemaProblem for what cannot be rewritten faithfully (a cycle, a root
 * that is not an object, a value that is not a schema where one must be).
 */
export function toDraft2020(schema: unknown): Schema {
  if (schema === true) return { type: "object" };
  if (!isObject(schema)) throw new SchemaProblem(`the input schema is ${describe(schema)}; expected a JSON Schema object`);
  const converted = convert(schema, schema, "", 0, new Set()) as Schema;
  return asObjectRoot(converted);
}

/** Tool input is always a JSON object: a root without `type` says so; a root of another type cannot be sent. */
function asObjectRoot(schema: Schema): Schema {
  const { type } = schema;
  if (type === undefined) return { type: "object", ...schema };
  if (type === "object") return schema;
  if (Array.isArray(type) && type.includes("object")) return { ...schema, type: "object" };
  throw new SchemaProblem(`the input schema's root has type ${JSON.stringify(type)}; a tool's input must be type "object"`);
}

function convert(node: unknown, root: Schema, pointer: string, depth: number, ancestors: Set<object>): unknown {
  if (typeof node === "boolean") return node;
  if (!isObject(node)) throw new SchemaProblem(`${pointer || "/"} is ${describe(node)}; expected a schema (an object or a boolean)`);
  if (ancestors.has(node)) throw new SchemaProblem(`${pointer || "/"} contains itself`);
  if (depth > MAX_DEPTH) throw new SchemaProblem(`${pointer} is nested more than ${MAX_DEPTH} schemas deep`);
  ancestors.add(node);
  const sub = (value: unknown, at: string) => convert(value, root, at, depth + 1, ancestors);
  const out: Schema = {};
  const defs: Schema = {};
  for (const [key, value] of Object.entries(node)) {
    const at = `${pointer}/${pointerSegment(key)}`;
    if (key === "$schema") continue;
    if (ONE_SCHEMA.has(key)) out[key] = sub(value, at);
    else if (SCHEMA_LISTS.has(key)) out[key] = listOf(value, at).map((item, index) => sub(item, `${at}/${index}`));
    else if (key === "definitions" || key === "$defs") Object.assign(defs, mapOf(value, at, sub));
    else if (SCHEMA_MAPS.has(key)) out[key] = mapOf(value, at, sub);
    else if (key === "items") {
      if (Array.isArray(value)) {
        out.prefixItems = value.map((item, index) => sub(item, `${at}/${index}`));
        if (node.additionalItems !== undefined) out.items = sub(node.additionalItems, `${pointer}/additionalItems`);
      } else out.items = sub(value, at);
    } else if (key === "additionalItems") {
      // Applies only after tuple `items` (handled there); alone it constrains nothing.
    } else if (key === "dependencies") Object.assign(out, dependenciesOf(value, at, sub));
    else if (key === "exclusiveMinimum" || key === "exclusiveMaximum") {
      if (typeof value === "number") out[key] = value;
      // draft-04: `true` makes the sibling minimum/maximum exclusive; `false` changes nothing.
      else if (value === true) {
        const bound = node[key === "exclusiveMinimum" ? "minimum" : "maximum"];
        if (typeof bound === "number") out[key] = bound;
      } else if (value !== false) throw new SchemaProblem(`${at} is ${describe(value)}; expected a number`);
    } else if ((key === "minimum" || key === "maximum") && node[key === "minimum" ? "exclusiveMinimum" : "exclusiveMaximum"] === true) {
      // Became the exclusive bound above.
    } else if (key === "id" && typeof value === "string" && node.$id === undefined) Object.assign(out, identifierOf(value));
    else if (key === "$ref" && typeof value === "string") out.$ref = translateRef(value, root);
    else out[key] = value;
  }
  if (Object.keys(defs).length > 0) {
    if (
      isObject(node.definitions) &&
      isObject(node.$defs) &&
      Object.keys(node.definitions).some((name) => name in (node.$defs as Schema))
    ) {
      throw new SchemaProblem(`${pointer || "/"} has "definitions" and "$defs" that both define the same name`);
    }
    out.$defs = defs;
  }
  ancestors.delete(node);
  return out;
}

function listOf(value: unknown, at: string): unknown[] {
  if (!Array.isArray(value)) throw new SchemaProblem(`${at} is ${describe(value)}; expected an array of schemas`);
  return value;
}

function mapOf(value: unknown, at: string, sub: (value: unknown, at: string) => unknown): Schema {
  if (!isObject(value)) throw new SchemaProblem(`${at} is ${describe(value)}; expected an object of schemas`);
  return Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, sub(schema, `${at}/${pointerSegment(name)}`)]));
}

/** draft-07 `dependencies`: a list of names is `dependentRequired`, a schema is `dependentSchemas`. */
function dependenciesOf(value: unknown, at: string, sub: (value: unknown, at: string) => unknown): Schema {
  if (!isObject(value)) throw new SchemaProblem(`${at} is ${describe(value)}; expected an object`);
  const required: Schema = {};
  const schemas: Schema = {};
  for (const [name, dependency] of Object.entries(value)) {
    if (Array.isArray(dependency)) required[name] = dependency;
    else schemas[name] = sub(dependency, `${at}/${pointerSegment(name)}`);
  }
  return {
    ...(Object.keys(required).length > 0 ? { dependentRequired: required } : {}),
    ...(Object.keys(schemas).length > 0 ? { dependentSchemas: schemas } : {}),
  };
}

/** draft-04 `id`: a base URI (now `$id`), a `#name` fragment naming the subschema (now `$anchor`), or both. */
function identifierOf(id: string): Schema {
  const [base = "", anchor = ""] = id.split("#", 2);
  return { ...(base ? { $id: base } : {}), ...(/^[A-Za-z_][-A-Za-z0-9._]*$/.test(anchor) ? { $anchor: anchor } : {}) };
}

/**
 * A local `$ref`'s JSON pointer, followed through the original document and
 * rewritten where the keywords it passes were renamed: `definitions` is
 * `$defs`, a tuple's `items/N` is `prefixItems/N`, `additionalItems` is
 * `items`. Other references (`#`, `#anchor`, a URI) are left as they are.
 */
function translateRef(ref: string, root: Schema): string {
  if (!ref.startsWith("#/")) return ref;
  const segments = ref.slice(2).split("/");
  const out: string[] = [];
  let node: unknown = root;
  // Whether `node` is a schema, whose keys are keywords (else a map or list of schemas, whose keys are names).
  let schemaLevel = true;
  for (const raw of segments) {
    const key = pointerName(decodeURIComponent(raw));
    let renamed = key;
    let nextIsSchema = true;
    if (schemaLevel && isObject(node)) {
      if (key === "definitions") renamed = "$defs";
      else if (key === "items" && Array.isArray(node.items)) renamed = "prefixItems";
      else if (key === "additionalItems" && Array.isArray(node.items)) renamed = "items";
      nextIsSchema = !(
        SCHEMA_MAPS.has(key) ||
        SCHEMA_LISTS.has(key) ||
        key === "dependencies" ||
        (key === "items" && Array.isArray(node.items))
      );
    }
    out.push(renamed === key ? raw : pointerSegment(renamed));
    node = isObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[key] : undefined;
    schemaLevel = nextIsSchema;
  }
  return `#/${out.join("/")}`;
}

const pointerSegment = (name: string): string => name.replace(/~/g, "~0").replace(/\//g, "~1");
const pointerName = (segment: string): string => segment.replace(/~1/g, "/").replace(/~0/g, "~");

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`;
}
