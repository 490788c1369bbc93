import { boundText } from "./size-limit.ts";
import type { Redactor } from "@rein/guard";
import { sanitizeText } from "./sanitize-text.ts";

/**
 * A tool's input schema written by someone outside the runtime (an MCP
 * server, a plugin), as a model may be shown it. Every text a model reads
 * in it is outside text too: descriptions, titles, comments, defaults and
 * examples are redacted, sanitized (control characters, chat-template and
 * role tokens, approval claims) and bounded; values the model must send
 * back as they are (enum and const values, property names, patterns,
 * formats, references) cannot be rewritten, so a schema whose literal text
 * would need it is not shown at all.
 */
export interface PresentedSchema {
  schema: Record<string, unknown>;
  /** The sanitizer's and redactor's findings over the schema's texts, e.g. `special_token`, `secret_redacted`. */
  flags: string[];
  /** Why the schema cannot be shown (its tool is then not offered), when it cannot. */
  problem?: string;
}

export interface PresentSchemaOptions {
  redactor?: Redactor;
  /** UTF-8 bytes of each description, title, comment and string default or example. @defaultValue 1_000 */
  maxTextBytes?: number;
  /** UTF-8 bytes of the whole schema as JSON, once its texts are bounded. @defaultValue 32_768 */
  maxSchemaBytes?: number;
}

/** Keywords whose value is prose a model reads and nothing checks. */
const PROSE = new Set(["description", "title", "$comment", "markdownDescription", "deprecationMessage"]);
/** Keywords whose value is an instance (shown to the model as an example of what to send). */
const INSTANCES = new Set(["default", "examples"]);
/** Keywords whose value is one subschema. */
const SUBSCHEMA = new Set([
  "items",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
  "additionalItems",
]);
/** Keywords whose value is an array of subschemas. */
const SUBSCHEMA_LISTS = new Set(["anyOf", "oneOf", "allOf", "prefixItems"]);
/** Keywords whose value maps names to subschemas. */
const SUBSCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

class SchemaProblem extends Error {}

/** The schema as a model may see it, with what was found, or the reason it cannot be shown. */
export function presentUntrustedSchema(schema: Record<string, unknown>, options: PresentSchemaOptions = {}): PresentedSchema {
  const flags = new Set<string>();
  const maxTextBytes = options.maxTextBytes ?? 1_000;
  const maxSchemaBytes = options.maxSchemaBytes ?? 32_768;

  const prose = (text: string): string => {
    let shown = text;
    if (options.redactor) {
      const redacted = options.redactor.redact(shown);
      if (redacted.secrets > 0) flags.add("secret_redacted");
      if (redacted.pii > 0) flags.add("pii_redacted");
      shown = redacted.text;
    }
    const bounded = boundText(shown, { maxBytes: maxTextBytes, maxLines: Number.POSITIVE_INFINITY });
    if (bounded.truncated) flags.add("truncated");
    const sanitized = sanitizeText(bounded.truncated ? `${bounded.text}…` : bounded.text);
    for (const flag of sanitized.flags) flags.add(flag);
    return sanitized.text;
  };

  const literal = (text: string, where: string): string => {
    const sanitized = sanitizeText(text);
    const redacted = options.redactor?.redact(text);
    if (sanitized.text !== text || (redacted && redacted.text !== text)) {
      const found = redacted && redacted.text !== text ? ["a secret"] : sanitized.flags;
      throw new SchemaProblem(
        `${where} holds text the runtime would have to rewrite (${found.join(", ")}), and a value a model must send back cannot be rewritten`,
      );
    }
    for (const flag of sanitized.flags) flags.add(flag);
    return text;
  };

  const instance = (value: unknown): unknown => {
    if (typeof value === "string") return prose(value);
    if (Array.isArray(value)) return value.map(instance);
    if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [prose(key), instance(item)]));
    return value;
  };

  const literalValue = (value: unknown, where: string): unknown => {
    if (typeof value === "string") return literal(value, where);
    if (Array.isArray(value)) return value.map((item, index) => literalValue(item, `${where}[${index}]`));
    if (isObject(value))
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [
          literal(key, `${where} key ${JSON.stringify(key.slice(0, 40))}`),
          literalValue(item, `${where}.${key}`),
        ]),
      );
    return value;
  };

  const subschema = (node: unknown, where: string): unknown => {
    // `true` and `false` are schemas too.
    if (!isObject(node)) return node;
    const shown: Record<string, unknown> = {};
    for (const [keyword, value] of Object.entries(node)) {
      const at = where ? `${where}.${keyword}` : keyword;
      if (PROSE.has(keyword) && typeof value === "string") shown[keyword] = prose(value);
      else if (INSTANCES.has(keyword)) shown[keyword] = instance(value);
      else if (SUBSCHEMA.has(keyword))
        shown[keyword] = Array.isArray(value) ? value.map((item, index) => subschema(item, `${at}[${index}]`)) : subschema(value, at);
      else if (SUBSCHEMA_LISTS.has(keyword) && Array.isArray(value))
        shown[keyword] = value.map((item, index) => subschema(item, `${at}[${index}]`));
      else if (SUBSCHEMA_MAPS.has(keyword) && isObject(value)) {
        shown[keyword] = Object.fromEntries(
          Object.entries(value).map(([name, item]) => [
            literal(name, `${at} name ${JSON.stringify(name.slice(0, 40))}`),
            subschema(item, `${at}.${name}`),
          ]),
        );
      } else shown[literal(keyword, `${where || "the schema"} keyword ${JSON.stringify(keyword.slice(0, 40))}`)] = literalValue(value, at);
    }
    return shown;
  };

  try {
    const shown = subschema(schema, "") as Record<string, unknown>;
    const bytes = Buffer.byteLength(JSON.stringify(shown));
    if (bytes > maxSchemaBytes) throw new SchemaProblem(`it is ${bytes} bytes as JSON; expected at most ${maxSchemaBytes}`);
    return { schema: shown, flags: [...flags].sort() };
  } catch (error) {
    if (!(error instanceof SchemaProblem)) throw error;
    return { schema: {}, flags: [...flags].sort(), problem: `its input schema cannot be shown to a model: ${error.message}` };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
