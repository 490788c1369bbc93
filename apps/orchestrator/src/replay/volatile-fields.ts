/**
 * Parts of a tool's output that legitimately differ between two executions
 * of the same call: timings, wall-clock timestamps, and the workspace
 * directory (a replay runs in a fresh one). Two outputs that differ only
 * here are the same result.
 */
export interface VolatileField {
  name: string;
  pattern: RegExp;
  replacement: string;
}

export const VOLATILE_FIELDS: readonly VolatileField[] = [
  { name: "duration_ms", pattern: /duration_ms:?\s*\d+(\.\d+)?/g, replacement: "duration_ms <n>" },
  { name: "timestamp", pattern: /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})\b/g, replacement: "<timestamp>" },
];

/** Masks volatile parts; the workspace path of run `runId` is masked up to and including the id. */
export function maskVolatile(
  text: string,
  runId: string,
  fields: readonly VolatileField[] = VOLATILE_FIELDS,
): { text: string; masked: string[] } {
  const masked = new Set<string>();
  let result = text;
  const workspace = new RegExp(`(file://)?/[^\\s'"()]*?/${escapeRegExp(runId)}(?=/|\\b)`, "g");
  for (const field of [{ name: "workspace path", pattern: workspace, replacement: "<workspace>" }, ...fields]) {
    const next = result.replace(field.pattern, field.replacement);
    if (next !== result) masked.add(field.name);
    result = next;
  }
  return { text: result, masked: [...masked].sort() };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
