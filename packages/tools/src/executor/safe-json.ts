import { canonicalJson, type Sha256, sha256 } from "@rein/contracts";

/** Arguments larger than this are left out of trace payloads and live events (their hash is kept). */
export const TRACE_ARGS_LIMIT = 4096;

/** Model arguments are parsed JSON, but a provider bug must not crash the pipeline before it can refuse. */
export function safeJson(value: unknown): string {
  try {
    return canonicalJson(value) ?? "null";
  } catch {
    return JSON.stringify(String(value));
  }
}

export function safeHash(value: unknown): Sha256 {
  return sha256(safeJson(value));
}
