import type { ToolProgress } from "../define-tool.ts";
import type { CallTrace } from "./call-trace.ts";

// A server may report progress many times a second for hours; the trace keeps a readable, bounded sample.
const PROGRESS_INTERVAL_MS = 1_000;
const PROGRESS_EVENTS_PER_CALL = 100;
const MESSAGE_CHARS = 200;

/**
 * Traces one call's progress reports as `tool.progress` without letting a
 * chatty tool flood the trace: the first report, then at most one per
 * second, at most 100 in all; each event counts the reports left out since
 * the previous one. Reports after the call ended are dropped.
 */
export class ProgressTrace {
  private lastTracedAt: number | undefined;
  private traced = 0;
  private skipped = 0;
  private ended = false;
  private written: Promise<void> = Promise.resolve();

  constructor(
    private readonly trace: CallTrace,
    private readonly now: () => number,
    private readonly onWriteFailed: (error: unknown) => void,
    /** Hears each report the trace keeps, as it is made (the live channel). */
    private readonly onTraced?: (update: ToolProgress) => void,
  ) {}

  readonly report = (update: ToolProgress): void => {
    if (this.ended) return;
    const at = this.now();
    const tooSoon = this.lastTracedAt !== undefined && at - this.lastTracedAt < PROGRESS_INTERVAL_MS;
    if (tooSoon || this.traced >= PROGRESS_EVENTS_PER_CALL) {
      this.skipped += 1;
      return;
    }
    this.lastTracedAt = at;
    this.traced += 1;
    const payload = {
      progress: update.progress,
      ...(update.total === undefined ? {} : { total: update.total }),
      ...(update.message === undefined ? {} : { message: update.message.slice(0, MESSAGE_CHARS) }),
      skipped: this.skipped,
    };
    this.skipped = 0;
    this.onTraced?.(payload);
    this.written = this.written.then(() => this.trace.emit("tool.progress", payload)).catch(this.onWriteFailed);
  };

  /** Stops tracing and waits for what was traced, so progress comes before the call's result in the trace. */
  async end(): Promise<void> {
    this.ended = true;
    await this.written;
  }
}
