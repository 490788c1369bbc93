import type { TraceEvent } from "@rein/contracts/run";

/**
 * The artifact ids a run's events reference. Artifacts are stored by id with
 * no per-run index, so the trace is the index: any member named `artifactId`
 * at any depth of a payload.
 */
export function artifactIdsOf(events: readonly TraceEvent[]): string[] {
  const ids = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (value === null || typeof value !== "object") return;
    for (const [key, member] of Object.entries(value)) {
      if (key === "artifactId" && typeof member === "string" && member.length > 0) ids.add(member);
      else visit(member);
    }
  };
  for (const event of events) visit(event.payload);
  return [...ids].sort();
}
