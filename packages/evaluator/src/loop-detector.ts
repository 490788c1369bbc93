import type { ToolCallRecord, Verdict } from "@rein/core";

export type LoopFinding = NonNullable<Verdict["loop"]>;

export interface LoopDetectorOptions {
  /** How many of the latest calls are compared. @defaultValue 10 */
  window?: number;
  /** Occurrences of one fingerprint that make a loop. @defaultValue 3 */
  repeats?: number;
}

/**
 * Finds a loop in a step's calls. A call is its fingerprint (tool + canonical
 * args); repeating a call only counts when it also brings nothing new (its
 * results are not all different), so re-running tests after an edit is not a
 * loop, while the same call with changed args never is.
 *
 * - repeat: one fingerprint `repeats` times within the window without new results
 * - cycle: A-B-A-B at the end of the window with the same results each time
 * - repeat_after_retry: a call that failed in an earlier attempt fails again
 */
export function detectLoop(
  calls: readonly ToolCallRecord[],
  priorFailing: ReadonlySet<string>,
  options: LoopDetectorOptions = {},
): LoopFinding | undefined {
  const window = calls.slice(-(options.window ?? 10));
  const repeats = options.repeats ?? 3;
  const byFingerprint = new Map<string, ToolCallRecord[]>();
  for (const call of window) byFingerprint.set(call.fingerprint, [...(byFingerprint.get(call.fingerprint) ?? []), call]);
  for (const [fingerprint, occurrences] of byFingerprint) {
    const results = new Set(occurrences.map((call) => call.resultHash ?? call.status));
    if (occurrences.length >= repeats && results.size < occurrences.length) {
      return { kind: results.size === 1 ? "no_progress" : "repeat", fingerprint };
    }
  }
  const tail = window.slice(-4);
  if (tail.length === 4) {
    const [a, b, c, d] = tail as [ToolCallRecord, ToolCallRecord, ToolCallRecord, ToolCallRecord];
    const same = (x: ToolCallRecord, y: ToolCallRecord) => x.fingerprint === y.fingerprint && x.resultHash === y.resultHash;
    if (a.fingerprint !== b.fingerprint && same(a, c) && same(b, d)) return { kind: "cycle", fingerprint: a.fingerprint };
  }
  const repeatedFailure = calls.find((call) => call.status !== "ok" && priorFailing.has(call.fingerprint));
  if (repeatedFailure) return { kind: "repeat_after_retry", fingerprint: repeatedFailure.fingerprint };
  return undefined;
}
