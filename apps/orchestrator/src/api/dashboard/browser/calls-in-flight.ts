import type { CallInFlightView, LiveEvent, RunView } from "./api-types.ts";
import { el, testid } from "./dom.ts";
import { duration } from "./format.ts";
import { panel } from "./run-view-panels.ts";

/** A call running now, as the panel shows it. */
type Running = Pick<CallInFlightView, "key" | "stepId" | "tool" | "index" | "startedAt" | "progress">;

const keyOf = (event: { stepId: string | null; callId: string; index: number }): string =>
  (event.stepId || "-") + "|" + event.callId + "|" + event.index;

/**
 * The run page's calls in flight: a step's turn reaches the trace only after
 * its calls end, so a call that runs for minutes is shown here from the view
 * (the calls running when it was read) and the live channel (calls started,
 * progressing and ended since), until the trace holds it and the timeline
 * shows it instead. Each call is shown once, by its key.
 */
export class CallsInFlightPanel {
  private readonly heard = new Map<string, Running>();
  private readonly ended = new Set<string>();
  private read: Running[] = [];
  private durable = new Set<string>();

  constructor(private readonly box: HTMLElement) {}

  /** A fresh view: its calls in flight, and the calls its trace holds (which leave this panel). */
  view(view: RunView): void {
    this.read = view.inFlight;
    this.durable = new Set(view.calls.map((call) => call.key));
    for (const key of this.durable) this.heard.delete(key);
    this.render();
  }

  onLive(event: LiveEvent): void {
    if (event.type === "tool_started" && event.stepId) {
      const key = keyOf(event);
      if (this.durable.has(key) || this.ended.has(key)) return;
      this.heard.set(key, { key, stepId: event.stepId, tool: event.tool, index: event.index, startedAt: event.startedAt, progress: null });
    } else if (event.type === "tool_progress") {
      const running = this.heard.get(keyOf(event)) ?? this.read.find((call) => call.key === keyOf(event));
      if (!running) return;
      this.heard.set(running.key, {
        ...running,
        progress: { progress: event.progress, total: event.total ?? null, message: event.message ?? null },
      });
    } else if (event.type === "tool_finished") {
      this.ended.add(keyOf(event));
      this.heard.delete(keyOf(event));
    } else return;
    this.render();
  }

  private render(): void {
    const calls = new Map<string, Running>();
    for (const call of [...this.read, ...this.heard.values()])
      if (!this.durable.has(call.key) && !this.ended.has(call.key)) calls.set(call.key, call);
    if (calls.size === 0) {
      this.box.replaceChildren();
      return;
    }
    const rows = [...calls.values()].map((call) => testid(el("div", { className: "entry", textContent: line(call) }), "call-in-flight"));
    this.box.replaceChildren(panel("run-in-flight", "Calls running now", ...rows));
  }
}

function line(call: Running): string {
  const since = Date.now() - Date.parse(call.startedAt);
  const progress = call.progress
    ? " — " +
      call.progress.progress +
      (call.progress.total === null ? "" : "/" + call.progress.total) +
      (call.progress.message ? ": " + call.progress.message : "")
    : "";
  return "[" + call.stepId + "] #" + call.index + " " + call.tool + " running for " + duration(Math.max(0, since)) + progress;
}
