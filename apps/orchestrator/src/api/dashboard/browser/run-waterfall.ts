import type { RunView } from "./api-types.ts";
import { el, testid } from "./dom.ts";
import { ms } from "./format.ts";
import { panel } from "./run-view-panels.ts";

type BarKind = "step" | "model" | "tool";

interface Bar {
  label: string;
  kind: BarKind;
  /** Milliseconds since the run's first event. */
  startMs: number;
  durationMs: number;
  failed: boolean;
}

/**
 * The run page's waterfall: every step attempt, model call and tool call as a
 * bar on one time axis, as tracing UIs draw spans, so steps that ran at the
 * same time (a group's members) are seen overlapping and the slow one stands
 * out. Each step's model and tool calls follow its own bar; the planner's and
 * the evaluator's model calls come first.
 */
export function waterfallPanel(view: RunView): HTMLElement {
  const bars = barsOf(view);
  if (!bars.length || !view.startedAt)
    return panel("run-waterfall", "Waterfall", el("p", { className: "muted", textContent: "Nothing has run yet." }));
  const span = Math.max(1, ...bars.map((bar) => bar.startMs + bar.durationMs));
  const row = (bar: Bar) =>
    testid(
      el(
        "div",
        { className: "wf-row" },
        el("span", { className: "wf-label " + bar.kind, textContent: bar.label }),
        el(
          "span",
          { className: "wf-track" },
          el("span", {
            className: "wf-bar " + bar.kind + (bar.failed ? " failed" : ""),
            title: bar.label + ": +" + ms(bar.startMs) + ", " + ms(bar.durationMs),
            style:
              "left: " +
              ((bar.startMs / span) * 100).toFixed(2) +
              "%; width: " +
              Math.max(0.3, (bar.durationMs / span) * 100).toFixed(2) +
              "%",
          }),
        ),
        el("span", { className: "wf-time muted", textContent: ms(bar.durationMs) }),
      ),
      "waterfall-" + bar.kind,
    );
  return panel("run-waterfall", "Waterfall (0 to " + ms(span) + ")", ...bars.map(row));
}

function barsOf(view: RunView): Bar[] {
  if (!view.startedAt) return [];
  const start = Date.parse(view.startedAt);
  const end = view.lastEventAt ? Date.parse(view.lastEventAt) : start;
  const offset = (at: string) => Date.parse(at) - start;
  const models = (stepId: string | null): Bar[] =>
    view.timeline
      .filter((entry) => entry.stepId === stepId && (entry.kind === "model.responded" || entry.kind === "model.failed"))
      .map((entry) => {
        const durationMs = entry.durationMs ?? 0;
        return {
          label: (stepId ? "  " : "") + entry.label,
          kind: "model",
          startMs: entry.offsetMs - durationMs,
          durationMs,
          failed: entry.failed,
        };
      });
  const bars: Bar[] = models(null);
  for (const step of view.graph.steps) {
    for (const attempt of step.attempts) {
      const from = offset(attempt.dispatchedAt);
      const to = attempt.finishedAt ? offset(attempt.finishedAt) : end - start;
      bars.push({
        label: step.stepId + " " + step.title + (step.attempts.length > 1 ? " (attempt " + attempt.attempt + ")" : ""),
        kind: "step",
        startMs: from,
        durationMs: Math.max(0, to - from),
        failed: attempt.status === "failed",
      });
    }
    bars.push(...models(step.stepId));
    for (const call of view.calls.filter((candidate) => candidate.stepId === step.stepId))
      bars.push({ label: "  " + call.tool, kind: "tool", startMs: offset(call.at), durationMs: call.durationMs ?? 0, failed: call.failed });
  }
  return bars;
}
