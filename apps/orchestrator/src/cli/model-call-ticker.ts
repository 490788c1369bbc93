import type { LiveEvent } from "@rein/runtime";
import { describeLiveEvent } from "./progress.ts";

/** Erases the terminal's current line and returns to its start. */
const CLEAR_LINE = "\r\x1b[2K";

/**
 * `rein run` on a terminal: model text as it streams, and while a model call
 * is in flight with nothing streaming, one status line saying which calls and
 * for how long, redrawn in place each second. Progress lines are printed
 * after `beforeLine()`, which takes the status line away first, so the two
 * never share a line.
 */
export class ModelCallTicker {
  private readonly inFlight = new Map<string, { who: string; since: number }>();
  private statusShown = false;
  /** Model text is mid-line on the terminal: no status line until the next progress line. */
  private streaming = false;

  constructor(
    private readonly write: (text: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  onLive(event: LiveEvent): void {
    const key = `${event.role}|${event.stepId ?? ""}`;
    if (event.type === "call_started") {
      this.inFlight.set(key, { who: `${event.role}${event.stepId ? ` [${event.stepId}]` : ""}`, since: this.now() });
      return;
    }
    if (event.type === "call_finished") {
      this.inFlight.delete(key);
      if (this.inFlight.size === 0) this.clear();
      return;
    }
    this.clear();
    if (event.type === "text_delta") this.streaming = true;
    this.write(describeLiveEvent(event));
  }

  /** Called before a progress line is printed. */
  beforeLine(): void {
    this.clear();
    this.streaming = false;
  }

  /** Redraws the status line; a no-op when no call is in flight or text is streaming. */
  tick(): void {
    if (this.inFlight.size === 0 || this.streaming) return;
    const calls = [...this.inFlight.values()];
    const seconds = (call: { since: number }) => Math.floor((this.now() - call.since) / 1000);
    const [only] = calls;
    const text =
      calls.length === 1 && only
        ? `${only.who} model call in flight: ${seconds(only)} s`
        : `${calls.map((call) => `${call.who} ${seconds(call)} s`).join(", ")}: model calls in flight`;
    this.write(`${CLEAR_LINE}  … ${text}`);
    this.statusShown = true;
  }

  private clear(): void {
    if (!this.statusShown) return;
    this.write(CLEAR_LINE);
    this.statusShown = false;
  }
}
