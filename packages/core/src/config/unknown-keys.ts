import type { z } from "zod";

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
      return Array.isArray(value) ? value.flatMap((item, index) => unknownKeys(def.element as z.ZodType, item, [...path, String(index)])) : [];
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
        const suggestion = closest(key, known);
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

/** The known key nearest to `key` by edit distance, if at most a third of its length away (case ignored). */
function closest(key: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(key.toLowerCase(), name.toLowerCase());
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best && best.distance <= Math.max(1, Math.floor(best.name.length / 3)) ? best.name : undefined;
}

/** Edit distance counting a swap of two neighbours as one edit ("modle" → "model"). */
function editDistance(left: string, right: string): number {
  const rows: number[][] = Array.from({ length: left.length + 1 }, (_, i) => Array.from({ length: right.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number) => (rows[i] as number[])[j] as number;
  for (let i = 1; i <= left.length; i += 1) {
    for (let j = 1; j <= right.length; j += 1) {
      const cost = left[i - 1] === right[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && left[i - 1] === right[j - 2] && left[i - 2] === right[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = best;
    }
  }
  return at(left.length, right.length);
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
