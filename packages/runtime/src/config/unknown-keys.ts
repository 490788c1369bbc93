import type { z } from "zod";
import { closestName } from "@rein/contracts";

export interface UnknownKey {
  /** Dotted path of the key, e.g. `roles.worker.modle`. */
  path: string;
  /** The closest known key at the same place, when one is close enough to be a typo. */
  suggestion?: string;
}

/** Keys any JSON config may carry for editors, never for Rein. */
const EDITOR_KEYS = new Set(["$schema"]);

/**
 * Every key in `value` that `schema` does not know, walking objects, records
 * and arrays. Zod drops unknown keys silently; in a config that turns a typo
 * (`"modle"`) into a default nobody asked for, so the loader refuses them.
 */
export function unknownKeys(schema: z.ZodType, value: unknown, path: readonly string[] = []): UnknownKey[] {
  const def = definitionOf(schema);
  if (!def || value === null || typeof value !== "object") return [];
  switch (def.type) {
    case "optional":
    case "default":
    case "nullable":
    case "prefault":
    case "readonly":
      return unknownKeys(def.innerType as z.ZodType, value, path);
    case "pipe":
      return unknownKeys(def.in as z.ZodType, value, path);
    case "array":
      return Array.isArray(value)
        ? value.flatMap((item, index) => unknownKeys(def.element as z.ZodType, item, [...path, String(index)]))
        : [];
    case "record":
      return Object.entries(value).flatMap(([key, item]) => unknownKeys(def.valueType as z.ZodType, item, [...path, key]));
    case "object": {
      if (Array.isArray(value)) return [];
      const shape = def.shape as Record<string, z.ZodType>;
      const known = Object.keys(shape);
      const open = def.catchall !== undefined && definitionOf(def.catchall as z.ZodType)?.type !== "never";
      return Object.entries(value).flatMap(([key, item]) => {
        if (key in shape) return unknownKeys(shape[key] as z.ZodType, item, [...path, key]);
        if (open || (path.length === 0 && EDITOR_KEYS.has(key))) return [];
        const suggestion = closestName(key, known);
        return [{ path: [...path, key].join("."), ...(suggestion ? { suggestion } : {}) }];
      });
    }
    default:
      return [];
  }
}

interface Definition {
  type: string;
  [field: string]: unknown;
}

function definitionOf(schema: z.ZodType | undefined): Definition | undefined {
  return (schema as unknown as { _zod?: { def?: Definition } } | undefined)?._zod?.def;
}

/**
 * Line and column (both from 1) of a JSON.parse failure, from the "position N"
 * V8 puts in its message; undefined when the message carries none.
 */
export function jsonErrorLocation(text: string, error: unknown): { line: number; column: number } | undefined {
  const message = error instanceof Error ? error.message : "";
  const explicit = /line (\d+) column (\d+)/.exec(message);
  if (explicit) return { line: Number(explicit[1]), column: Number(explicit[2]) };
  const position = /position (\d+)/.exec(message);
  const offset = position ? Number(position[1]) : /Unexpected end of JSON input/.test(message) ? text.length : undefined;
  if (offset === undefined) return undefined;
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}
