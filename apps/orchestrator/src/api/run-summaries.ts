import { BuildId } from "@rein/contracts";
import { isTerminal, type RunState, RunStatus } from "@rein/contracts/run";
import type { ReinRuntime } from "@rein/runtime";
import { flatPairs } from "@rein/runtime/keys";
import { z } from "zod";

/** Most index entries one `GET /runs` reads: a filter that matches little stops here and hands back a cursor. */
export const MAX_SCANNED = 500;
/** Counts per status are over this many of the newest runs (exact when there are no more). */
export const COUNT_WINDOW = 1000;
const COUNTS_FRESH_MS = 5_000;
const BATCH = 100;

export const RunListQuery = z.object({
  status: RunStatus.optional(),
  /** Only runs started under this build (a rolling upgrade: what the old build still carries). */
  build: BuildId.optional(),
  q: z.string().trim().min(1).max(200).optional(),
  cursor: z
    .string()
    .regex(/^\d+:[\w-]+$/, "expected the nextCursor of an earlier page")
    .optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type RunListQuery = z.infer<typeof RunListQuery>;

/** One row of the run list: what an operator scans for. */
export interface RunSummary {
  id: string;
  status: RunStatus;
  goal: string;
  startedAt: string;
  /** Until the run ended (its last write), or until now while it runs. */
  durationMs: number;
  steps: number;
  tokens: number;
  costUsd: number;
  /** What the run waits for: approvals, or a person's reply; null when it waits for nothing. */
  waitingFor: { approvals: string[] } | { reply: string } | null;
  /** The build it was started under (its steps go to that build's workers); null for none. */
  build: string | null;
}

export interface RunPage {
  runs: RunSummary[];
  /** Pass as `cursor` for the next page; null at the end of the index. */
  nextCursor: string | null;
  /** Index entries read for this page (at most MAX_SCANNED). */
  scanned: number;
  counts: StatusCounts;
}

export interface StatusCounts {
  byStatus: Record<RunStatus, number>;
  /** How many of the newest runs were counted. */
  counted: number;
  /** False when the index holds more runs than COUNT_WINDOW. */
  exact: boolean;
}

export function summarize(state: RunState, now = Date.now()): RunSummary {
  const started = Date.parse(state.createdAt);
  const end = isTerminal(state.status) ? Date.parse(state.updatedAt) : now;
  return {
    id: state.runId,
    status: state.status,
    goal: state.goal.text,
    startedAt: state.createdAt,
    durationMs: Math.max(0, end - started),
    steps: state.steps.length,
    tokens: state.usage.inputTokens + state.usage.outputTokens,
    costUsd: state.usage.costUsd,
    waitingFor:
      state.status === "waiting_approval"
        ? { approvals: state.pendingApprovals }
        : state.status === "escalated"
          ? { reply: state.stopReason ?? "a person's instruction" }
          : null,
    build: state.build ?? null,
  };
}

/**
 * Pages through the run index newest first. Every request is bounded: it
 * reads at most MAX_SCANNED index entries and their states, whatever the
 * filter, and the status counts come from a window of the newest runs,
 * recomputed at most every few seconds per server — never a scan of every
 * run per request.
 */
export class RunLister {
  private counts: { at: number; value: Promise<StatusCounts> } | undefined;

  constructor(private readonly runtime: ReinRuntime) {}

  /**
   * One page of the list. With `visible` (a token limited to some runs),
   * other runs are left out, and the counts are of the visible runs this
   * page read, not of the deployment's (`exact` false).
   */
  async page(query: RunListQuery, visible?: (state: RunState) => boolean): Promise<RunPage> {
    const index = this.runtime.keys.runIndex();
    let start = query.cursor ? await this.positionAfter(query.cursor) : 0;
    const runs: RunSummary[] = [];
    const seen: RunState[] = [];
    let scanned = 0;
    let last: { id: string; score: string } | undefined;
    let exhausted = false;
    const needle = query.q?.toLowerCase();
    while (runs.length < query.limit && scanned < MAX_SCANNED) {
      const entries = flatPairs(
        await this.runtime.redis.zrevrange(index, start, start + Math.min(BATCH, MAX_SCANNED - scanned) - 1, "WITHSCORES"),
        "the run index",
      );
      if (entries.length === 0) {
        exhausted = true;
        break;
      }
      const states = await Promise.all(entries.map(([id]) => this.readState(id)));
      for (const [i, [id, score]] of entries.entries()) {
        scanned += 1;
        start += 1;
        last = { id, score };
        const state = states[i];
        if (state && visible && !visible(state)) continue;
        if (state && visible) seen.push(state);
        if (state && matches(state, query, needle)) runs.push(summarize(state));
        if (runs.length === query.limit) break;
      }
    }
    if (!exhausted && last) exhausted = (await this.runtime.redis.zcard(index)) <= start;
    const counts = visible ? countsOf(seen) : await this.statusCounts();
    return { runs, nextCursor: exhausted || !last ? null : `${last.score}:${last.id}`, scanned, counts };
  }

  /** The index position just after the cursor's run; where it would have been if it was pruned since. */
  private async positionAfter(cursor: string): Promise<number> {
    const colon = cursor.indexOf(":");
    const [score, runId] = [cursor.slice(0, colon), cursor.slice(colon + 1)];
    const index = this.runtime.keys.runIndex();
    const rank = await this.runtime.redis.zrevrank(index, runId);
    return rank === null ? this.runtime.redis.zcount(index, `(${score}`, "+inf") : rank + 1;
  }

  /** Runs per status over the newest COUNT_WINDOW runs, at most COUNTS_FRESH_MS old. */
  statusCounts(): Promise<StatusCounts> {
    if (this.counts && Date.now() - this.counts.at < COUNTS_FRESH_MS) return this.counts.value;
    return this.freshCounts();
  }

  /** Counts now, for a caller that knows a run just changed (the run feed); later `statusCounts` calls reuse them. */
  freshCounts(): Promise<StatusCounts> {
    const value = this.countWindow();
    this.counts = { at: Date.now(), value };
    value.catch(() => {
      this.counts = undefined;
    });
    return value;
  }

  // Reads the status field the run store keeps beside each state, not the
  // states themselves: a thousand small reads, no JSON parsed.
  private async countWindow(): Promise<StatusCounts> {
    const index = this.runtime.keys.runIndex();
    const byStatus = Object.fromEntries(RunStatus.options.map((status) => [status, 0])) as Record<RunStatus, number>;
    let counted = 0;
    for (let start = 0; start < COUNT_WINDOW; start += BATCH) {
      const ids = await this.runtime.redis.zrevrange(index, start, start + BATCH - 1);
      const statuses = await Promise.all(ids.map((id) => this.runtime.redis.hget(this.runtime.keys.run(id), "status")));
      for (const status of statuses) {
        const known = RunStatus.safeParse(status);
        if (!known.success) continue;
        byStatus[known.data] += 1;
        counted += 1;
      }
      if (ids.length < BATCH) return { byStatus, counted, exact: true };
    }
    return { byStatus, counted, exact: (await this.runtime.redis.zcard(index)) <= COUNT_WINDOW };
  }

  /** A run's summary now, with its goal's metadata (what decides who may see it); null when it is gone or unreadable. */
  async summaryOf(runId: string): Promise<{ run: RunSummary; metadata: Readonly<Record<string, string>> } | null> {
    const state = await this.readState(runId);
    return state ? { run: summarize(state), metadata: state.goal.metadata } : null;
  }

  /** An index entry whose run is gone (pruned, or a crash mid-create) or unreadable is left out of lists. */
  private async readState(runId: string): Promise<RunState | null> {
    try {
      return await this.runtime.runs.get(runId);
    } catch (error) {
      this.runtime.logger.warn({ err: error, runId }, "run list: a stored run does not parse; left out");
      return null;
    }
  }
}

function matches(state: RunState, { status, build }: RunListQuery, needle: string | undefined): boolean {
  if (status && state.status !== status) return false;
  if (build !== undefined && state.build !== build) return false;
  return !needle || state.goal.text.toLowerCase().includes(needle) || state.runId.toLowerCase().includes(needle);
}

/** Counts per status of the runs given: what a token limited to some runs may know. */
function countsOf(states: readonly RunState[]): StatusCounts {
  const byStatus = Object.fromEntries(RunStatus.options.map((status) => [status, 0])) as Record<RunStatus, number>;
  for (const state of states) byStatus[state.status] += 1;
  return { byStatus, counted: states.length, exact: false };
}
