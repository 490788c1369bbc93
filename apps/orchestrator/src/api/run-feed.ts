import { errorMessage } from "@rein/contracts";
import { isTerminal, RunStatus } from "@rein/contracts/run";
import type { ReinRuntime } from "@rein/runtime";
import type { RunLister, RunSummary, StatusCounts } from "./run-summaries.ts";

/**
 * What `GET /runs/events` streams: a run that is new or changed (with its
 * goal's metadata, which decides who may see it; not sent), or the counts
 * per status after a change.
 */
export type RunFeedEvent =
  | { kind: "run"; run: RunSummary; metadata: Readonly<Record<string, string>> }
  | { kind: "counts"; counts: StatusCounts };
export type RunFeedListener = (event: RunFeedEvent) => void;

export interface RunFeedOptions {
  /** How often the feed looks for changes while anyone listens. @defaultValue 1000 */
  intervalMs?: number;
  /** How many of the newest runs each look covers, besides the unfinished ones seen before. @defaultValue 200 */
  window?: number;
  /** Counts per status are recounted at most this often while runs change. @defaultValue 2000 */
  countsEveryMs?: number;
}

/**
 * One watcher of the run index per server process, fanned out to every
 * open `GET /runs/events`: however many dashboards are open, the process
 * makes one look per interval — the newest runs' version and status fields,
 * not their states — and reads a state only when its version moved. It
 * looks only while someone listens. An unfinished run stays watched after
 * newer runs push it out of the window, so its end is still seen.
 */
export class RunFeed {
  private readonly listeners = new Set<RunFeedListener>();
  private readonly versions = new Map<string, string>();
  private readonly unfinished = new Set<string>();
  private readonly intervalMs: number;
  private readonly window: number;
  private readonly countsEveryMs: number;
  private timer: NodeJS.Timeout | undefined;
  private primed: Promise<void> | undefined;
  private countsAt = 0;
  private countsOwed = false;

  constructor(
    private readonly runtime: ReinRuntime,
    private readonly lister: RunLister,
    options: RunFeedOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 1000;
    this.window = options.window ?? 200;
    this.countsEveryMs = options.countsEveryMs ?? 2000;
  }

  /**
   * Resolves once the feed knows every run's current version, so a listener
   * that reads `GET /runs` after it resolves misses no change: every change
   * after that read arrives here. Returns the function that stops listening.
   */
  async subscribe(listener: RunFeedListener): Promise<() => void> {
    this.listeners.add(listener);
    const unsubscribe = () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
    try {
      this.primed ??= this.look(false);
      await this.primed;
    } catch (error) {
      unsubscribe();
      throw error;
    }
    this.timer ??= setInterval(() => this.tick(), this.intervalMs);
    return unsubscribe;
  }

  private stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.primed = undefined;
    this.versions.clear();
    this.unfinished.clear();
  }

  private ticking = false;

  private tick(): void {
    if (this.ticking) return;
    this.ticking = true;
    this.look(true)
      .catch((error: unknown) =>
        this.runtime.logger.warn({ error: errorMessage(error) }, "run feed: could not read the run index; trying again"),
      )
      .finally(() => {
        this.ticking = false;
      });
  }

  private async look(announce: boolean): Promise<void> {
    const newest = await this.runtime.redis.zrevrange(this.runtime.keys.runIndex(), 0, this.window - 1);
    const watched = [...new Set([...newest, ...this.unfinished])];
    const fields = await Promise.all(watched.map((runId) => this.runtime.redis.hmget(this.runtime.keys.run(runId), "version", "status")));
    const changed: string[] = [];
    for (const [i, runId] of watched.entries()) {
      const [version, status] = fields[i] ?? [null, null];
      if (version === null || version === undefined) {
        this.versions.delete(runId);
        this.unfinished.delete(runId);
        continue;
      }
      const known = RunStatus.safeParse(status);
      if (known.success && !isTerminal(known.data)) this.unfinished.add(runId);
      else this.unfinished.delete(runId);
      if (this.versions.get(runId) === version) continue;
      this.versions.set(runId, version);
      changed.push(runId);
    }
    const watching = new Set(watched);
    for (const runId of this.versions.keys()) if (!watching.has(runId)) this.versions.delete(runId);
    if (!announce) return;
    if (changed.length > 0) {
      const summaries = await Promise.all(changed.map((runId) => this.lister.summaryOf(runId)));
      for (const summary of summaries) if (summary) this.emit({ kind: "run", ...summary });
      this.countsOwed = true;
    }
    if (this.countsOwed && Date.now() - this.countsAt >= this.countsEveryMs) {
      this.countsOwed = false;
      this.countsAt = Date.now();
      this.emit({ kind: "counts", counts: await this.lister.freshCounts() });
    }
  }

  private emit(event: RunFeedEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.runtime.logger.warn({ error: errorMessage(error) }, "run feed: a listener failed; the others still get the event");
      }
    }
  }
}
