/**
 * The run page: the run's header (status, cancel, pending approvals, the
 * reply form of an escalated run) and the panels built from its view model,
 * kept current while the run's trace is followed live (read with fetch so
 * the request carries the token; EventSource cannot set headers), with the
 * model's streamed output below.
 */
export const RUN_PAGE_SCRIPT = `
let follow = null;
// Trace events that change the header (status, approvals, the reply form); others only change the panels.
const HEADER_KINDS = ["run.status_changed", "run.done", "run.failed", "run.cancelled", "run.escalated", "run.resumed", "step.suspended", "step.resumed", "approval.decided"];

async function renderHeader(runId, header) {
  await roleKnown;
  const state = await api("/runs/" + runId);
  const { approvals } = await api("/approvals");
  header.replaceChildren(
    testid(el("h2", { textContent: state.goal.text }), "run-goal"),
    el("p", {}, testid(el("span", { className: "status " + state.status, textContent: state.status }), "run-status"), " " + (state.stopReason || ""),
      " ", ["done", "failed", "cancelled"].includes(state.status) || !may("admin") ? "" : el("button", { textContent: "Cancel run", onclick: () => api("/runs/" + runId + "/cancel", { method: "POST", body: JSON.stringify({ reason: "cancelled from the dashboard" }) }).then(() => showRun(runId)) })),
    ...approvals.filter((approval) => approval.runId === runId).map((approval) => approvalView(approval, runId)),
    state.status === "escalated" ? replyView(runId) : "");
}

async function renderPanels(runId, panels) {
  let view;
  try {
    view = await api("/runs/" + runId + "/view");
  } catch (error) {
    panels.replaceChildren(el("p", { className: "error", textContent: "Cannot show the run: " + error.message }));
    return;
  }
  const callsByKey = new Map(view.calls.map((call) => [call.key, call]));
  // Re-rendering must not close the calls a person opened.
  const open = new Set([...document.querySelectorAll("details.call[open]")].map((node) => node.id));
  panels.replaceChildren(
    el("div", { className: "panels" }, planPanel(view.plan), usagePanel(view.usage)),
    graphPanel(view, callsByKey),
    answerPanel(view.answer),
    verdictsPanel(view.verdicts),
    timelinePanel(view, callsByKey));
  for (const id of open) { const node = document.getElementById(id); if (node) node.open = true; }
}

// Renders at most one at a time; events arriving meanwhile ask for one more render after it.
function renderer(render) {
  let running = null, again = false;
  const schedule = () => {
    if (running) { again = true; return; }
    running = render().catch(() => {}).finally(() => { running = null; if (again) { again = false; schedule(); } });
  };
  return schedule;
}

async function showRun(runId) {
  if (follow) follow.abort();
  history.replaceState(null, "", "#" + runId);
  follow = new AbortController();
  for (const node of document.querySelectorAll(".run")) node.classList.toggle("selected", node.textContent.includes(runId));
  const header = el("div", { id: "run-header" });
  const panels = el("div", { id: "run-panels" });
  const liveBox = testid(el("div", { id: "live", className: "muted" }), "run-live");
  document.getElementById("detail").replaceChildren(header, panels, liveBox);
  await renderHeader(runId, header);
  await renderPanels(runId, panels);
  const refreshHeader = renderer(() => renderHeader(runId, header));
  const refreshPanels = renderer(() => renderPanels(runId, panels));
  let response;
  try {
    response = await fetch("/runs/" + runId + "/events", { headers: headers(), signal: follow.signal });
  } catch (error) {
    // Choosing another run (or re-showing this one) aborts the old follow: that is not a failure to show.
    if (error.name !== "AbortError") liveBox.textContent = "could not follow the run's events: " + error.message;
    return;
  }
  // A dropped stream ends the follow quietly, as an aborted one does: the panels stay as last drawn.
  await readEvents(response, (kind, data) => {
    if (kind === "live") { showLive(liveBox, data); return; }
    if (HEADER_KINDS.includes(data.kind)) refreshHeader();
    refreshPanels();
  }).catch(() => {});
}

// Model output as it streams, one line per role and step and one for its thinking; a retry voids what
// that call showed so far. A call's start and end carry no text.
function showLive(box, event) {
  if (event.type !== "text_delta" && event.type !== "thinking_delta" && event.type !== "retry") return;
  const who = event.role + " " + (event.stepId || "");
  const row = (key, className) => {
    let found = box.querySelector('[data-key="' + CSS.escape(key) + '"]');
    if (!found) { found = el("div", { className }); found.dataset.key = key; box.append(found); }
    return found;
  };
  if (event.type === "retry") {
    row(who + " thinking", "live-row live-thinking").textContent = "";
    row(who, "live-row").textContent = "[" + who.trim() + " retried: " + event.reason + "; partial output discarded] ";
    return;
  }
  const target = event.type === "thinking_delta" ? row(who + " thinking", "live-row live-thinking") : row(who, "live-row");
  target.textContent = (target.textContent + event.text).slice(-2000);
}
`;
