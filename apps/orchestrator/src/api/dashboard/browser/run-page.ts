import { api, headers, messageOf, readEvents } from "./api.ts";
import type { LiveEvent, QueuedApproval, RunState, RunView, TraceEvent, TraceKind } from "./api-types.ts";
import { approvalView } from "./approvals.ts";
import { CallsInFlightPanel } from "./calls-in-flight.ts";
import { byId, el, keepChildren, testid } from "./dom.ts";
import { replyView } from "./escalation-reply.ts";
import { may, roleKnown } from "./identity.ts";
import { showLive } from "./live-output.ts";
import { timelinePanel } from "./run-timeline.ts";
import { waterfallPanel } from "./run-waterfall.ts";
import { answerPanel, graphPanel, planPanel, usagePanel, verdictsPanel } from "./run-view-panels.ts";
import { showRun } from "./views.ts";

/**
 * The run page: the run's header (status, cancel, pending approvals, the
 * reply form of an escalated run) and the panels built from its view model,
 * kept current while the run's trace is followed live, with the model's
 * streamed output below.
 */

/** The follow of the run on screen: choosing another run, or another view, aborts it. */
let follow: AbortController | null = null;

// Trace events that change the header (status, approvals, the reply form); others only change the panels.
const HEADER_KINDS: ReadonlySet<string> = new Set([
  "run.status_changed",
  "run.done",
  "run.failed",
  "run.cancelled",
  "run.escalated",
  "run.resumed",
  "step.suspended",
  "step.resumed",
  "approval.decided",
] satisfies TraceKind[]);

async function renderHeader(runId: string, header: HTMLElement): Promise<void> {
  await roleKnown;
  const state = await api<RunState>("/runs/" + runId);
  const { approvals } = await api<{ approvals: QueuedApproval[] }>("/approvals");
  const ended = ["done", "failed", "cancelled"].includes(state.status);
  const cancelProblem = testid(el("span", { className: "error" }), "cancel-problem");
  const cancel = () =>
    api("/runs/" + runId + "/cancel", { method: "POST", body: JSON.stringify({ reason: "cancelled from the dashboard" }) }).then(
      () => showRun(runId),
      (error: unknown) => {
        cancelProblem.textContent = "Cancel refused: " + messageOf(error);
      },
    );
  // A card or reply box already shown is kept, not rebuilt: a person may be typing into it.
  const shownCards = new Map(
    [...header.querySelectorAll<HTMLElement>('[data-testid="approval-card"]')].map((card) => [card.dataset.approvalId, card]),
  );
  const cards = approvals
    .filter((approval) => approval.runId === runId)
    .map((approval) => shownCards.get(approval.approvalId) ?? approvalView(approval));
  const shownReply = header.querySelector<HTMLElement>('[data-testid="escalation-form"]');
  const reply = state.status === "escalated" ? [shownReply ?? replyView(runId)] : [];
  keepChildren(header, [
    testid(el("h2", { textContent: state.goal.text }), "run-goal"),
    el(
      "p",
      {},
      testid(el("span", { className: "status " + state.status, textContent: state.status }), "run-status"),
      " " + (state.stopReason || ""),
      " ",
      ended || !may("admin") ? "" : el("button", { textContent: "Cancel run", onclick: cancel }),
      " ",
      cancelProblem,
    ),
    ...cards,
    ...reply,
  ]);
}

async function renderPanels(runId: string, panels: HTMLElement, inFlight: CallsInFlightPanel): Promise<void> {
  let view: RunView;
  try {
    view = await api<RunView>("/runs/" + runId + "/view");
  } catch (error) {
    panels.replaceChildren(el("p", { className: "error", textContent: "Cannot show the run: " + messageOf(error) }));
    return;
  }
  inFlight.view(view);
  const callsByKey = new Map(view.calls.map((call) => [call.key, call]));
  // Re-rendering must not close the calls a person opened.
  const open = new Set([...document.querySelectorAll("details.call[open]")].map((node) => node.id));
  panels.replaceChildren(
    el("div", { className: "panels" }, planPanel(view.plan), usagePanel(view.usage)),
    graphPanel(view, callsByKey),
    waterfallPanel(view),
    answerPanel(view.answer),
    verdictsPanel(view.verdicts),
    timelinePanel(view, callsByKey),
  );
  for (const id of open) {
    const node = document.getElementById(id) as HTMLDetailsElement | null;
    if (node) node.open = true;
  }
}

// Renders at most one at a time; events arriving meanwhile ask for one more render after it.
function renderer(render: () => Promise<void>): () => void {
  let running: Promise<void> | null = null;
  let again = false;
  const schedule = () => {
    if (running) {
      again = true;
      return;
    }
    running = render()
      .catch(() => {})
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          schedule();
        }
      });
  };
  return schedule;
}

/** Stops following the run on screen (another view was chosen). */
export function stopFollowingRun(): void {
  follow?.abort();
}

/** Shows a run and follows its trace (GET /runs/{id}/events) until another run or view is chosen; open it through views.showRun. */
export async function showRunPage(runId: string): Promise<void> {
  follow?.abort();
  history.replaceState(null, "", "#" + runId);
  const following = new AbortController();
  follow = following;
  for (const row of document.querySelectorAll<HTMLElement>(".run")) row.classList.toggle("selected", row.dataset.runId === runId);
  const header = el("div", { id: "run-header" });
  const panels = el("div", { id: "run-panels" });
  // Calls a step's turn has not written yet: shown from the view and the live channel until the timeline has them.
  const inFlightBox = el("div", { id: "run-in-flight" });
  const inFlight = new CallsInFlightPanel(inFlightBox);
  const liveBox = testid(el("div", { id: "live", className: "muted" }), "run-live");
  byId("detail").replaceChildren(header, inFlightBox, panels, liveBox);
  try {
    await renderHeader(runId, header);
  } catch (error) {
    // A run that is gone (a link kept past its retention, a mistyped id) or a refused read: say so, follow nothing.
    header.replaceChildren(
      testid(el("p", { className: "error", textContent: "Cannot show run " + runId + ": " + messageOf(error) }), "run-problem"),
    );
    return;
  }
  await renderPanels(runId, panels, inFlight);
  const refreshHeader = renderer(() => renderHeader(runId, header));
  const refreshPanels = renderer(() => renderPanels(runId, panels, inFlight));
  let response: Response;
  try {
    response = await fetch("/runs/" + runId + "/events", { headers: headers(), signal: following.signal });
  } catch (error) {
    // Choosing another run (or re-showing this one) aborts the old follow: that is not a failure to show.
    if (!following.signal.aborted) liveBox.textContent = "could not follow the run's events: " + messageOf(error);
    return;
  }
  // A dropped stream ends the follow quietly, as an aborted one does: the panels stay as last drawn.
  await readEvents(response, (kind, data) => {
    if (kind === "live") {
      showLive(liveBox, data as LiveEvent);
      inFlight.onLive(data as LiveEvent);
      return;
    }
    if (HEADER_KINDS.has((data as TraceEvent).kind)) refreshHeader();
    refreshPanels();
  }).catch(() => {});
}
