import { isTerminal, type RunState } from "@rein/contracts/run";

/**
 * The last state this controller wrote for each run, kept as written (its
 * JSON), so that the run's next event starts from it instead of a read and
 * a zod parse of the whole state. Nothing trusts it blindly: the controller
 * writes what it derives from a kept state with compare-and-set on the kept
 * version, which lands only if no one wrote the run since (a version is
 * written once, by the one writer that won it, so the stored state is then
 * exactly the kept one); a lost race answers with the stored state.
 *
 * Bounded by the total size of what it keeps, the oldest dropped first; a
 * run that ended is not kept (its next events change nothing).
 */
export class WrittenStates {
  private readonly kept = new Map<string, string>();
  private size = 0;

  constructor(private readonly maxChars: number) {}

  /** The state kept for `runId`, no longer kept (its next write keeps the next one); undefined when none. */
  take(runId: string): RunState | undefined {
    const json = this.kept.get(runId);
    if (json === undefined) return undefined;
    this.forget(runId, json);
    // Not re-validated: this process validated what it derived this from, and wrote exactly this.
    return JSON.parse(json) as RunState;
  }

  keep(state: RunState, json: string): void {
    const before = this.kept.get(state.runId);
    if (before !== undefined) this.forget(state.runId, before);
    if (isTerminal(state.status) || json.length > this.maxChars) return;
    this.kept.set(state.runId, json);
    this.size += json.length;
    for (const [runId, oldest] of this.kept) {
      if (this.size <= this.maxChars) break;
      this.forget(runId, oldest);
    }
  }

  private forget(runId: string, json: string): void {
    this.kept.delete(runId);
    this.size -= json.length;
  }
}
