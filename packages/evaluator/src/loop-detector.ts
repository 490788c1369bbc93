import type { ToolCallRecord } from "@rein/contracts";
import type { Verdict } from "@rein/contracts/run";

export type LoopFinding = NonNullable<Verdict["loop"]>;

export interface LoopDetectorOptions {
  /** How many consecutive calls a sliding window holds. @defaultValue 10 */
  window?: number;
  /** Occurrences of one fingerprint inside a window that make a repeat. @defaultValue 3 */
  repeats?: number;
}

/** What a call returned, for "did repeating it bring anything new". */
const resultOf = (call: ToolCallRecord): string => `${call.status}:${call.resultHash ?? ""}`;

/**
 * Finds a loop in one attempt's calls. A call is its fingerprint: sha256 of
 * (tool name, canonical args), so the same tool with changed args is a
 * different call and never part of a loop. Checked in this order:
 *
 * - `no_progress`: one fingerprint `repeats` times within a window of
 *   `window` consecutive calls, returning the same result every time;
 * - `repeat`: the same, with some but not all results repeated. When every
 *   occurrence returned something new (tests re-run after each edit), the
 *   world changed between them: that is progress, not a loop;
 * - `cycle`: four consecutive calls A-B-A-B (A ≠ B) whose A results match
 *   and whose B results match;
 * - `repeat_after_retry`: a call that failed in an earlier attempt of this
 *   step is made again and fails again.
 */
export function detectLoop(
  calls: readonly ToolCallRecord[],
  priorFailed: ReadonlySet<string>,
  options: LoopDetectorOptions = {},
): LoopFinding | undefined {
  const window = options.window ?? 10;
  const repeats = options.repeats ?? 3;
  const positions = new Map<string, number[]>();
  for (const [index, call] of calls.entries()) positions.set(call.fingerprint, [...(positions.get(call.fingerprint) ?? []), index]);
  for (const [fingerprint, indexes] of positions) {
    for (let start = 0; start + repeats <= indexes.length; start += 1) {
      const group = indexes.slice(start, start + repeats);
      if ((group.at(-1) ?? 0) - (group[0] ?? 0) >= window) continue;
      const results = new Set(group.map((index) => resultOf(calls[index] as ToolCallRecord)));
      if (results.size === group.length) continue;
      return { kind: results.size === 1 ? "no_progress" : "repeat", fingerprint };
    }
  }
  for (let index = 0; index + 3 < calls.length; index += 1) {
    const [a, b, c, d] = calls.slice(index, index + 4) as [ToolCallRecord, ToolCallRecord, ToolCallRecord, ToolCallRecord];
    const same = (x: ToolCallRecord, y: ToolCallRecord) => x.fingerprint === y.fingerprint && resultOf(x) === resultOf(y);
    if (a.fingerprint !== b.fingerprint && same(a, c) && same(b, d)) return { kind: "cycle", fingerprint: a.fingerprint };
  }
  const failedAgain = calls.find((call) => call.status !== "ok" && priorFailed.has(call.fingerprint));
  if (failedAgain) return { kind: "repeat_after_retry", fingerprint: failedAgain.fingerprint };
  return undefined;
}

/**
 * Whether an earlier attempt looped, judged from its fingerprints alone
 * (results of earlier attempts are not kept): a fingerprint `repeats` times
 * within a window, or an A-B-A-B cycle.
 */
export function loopedByFingerprints(fingerprints: readonly string[], options: LoopDetectorOptions = {}): boolean {
  const window = options.window ?? 10;
  const repeats = options.repeats ?? 3;
  for (let start = 0; start < fingerprints.length; start += 1) {
    const inWindow = fingerprints.slice(start, start + window);
    if (inWindow.filter((fingerprint) => fingerprint === fingerprints[start]).length >= repeats) return true;
  }
  for (let index = 0; index + 3 < fingerprints.length; index += 1) {
    const [a, b, c, d] = fingerprints.slice(index, index + 4);
    if (a !== b && a === c && b === d) return true;
  }
  return false;
}
