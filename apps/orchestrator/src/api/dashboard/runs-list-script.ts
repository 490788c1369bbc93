/** The run list view: summaries from GET /runs with a status filter and counts. */
export const RUNS_LIST_SCRIPT = `
let statusFilter = "";
const STATUSES = ["planning", "dispatching", "executing", "evaluating", "waiting_approval", "escalated", "done", "failed", "cancelled"];
const duration = (ms) => ms < 60000 ? Math.round(ms / 1000) + " s" : ms < 3600000 ? Math.round(ms / 60000) + " min" : (ms / 3600000).toFixed(1) + " h";

// The run list: summaries from GET /runs, a status filter with counts, refreshed every few seconds.
async function loadRuns() {
  const list = document.getElementById("runs");
  try {
    const page = await api("/runs" + (statusFilter ? "?status=" + statusFilter : ""));
    const filter = el("select", { id: "status-filter", onchange: (event) => { statusFilter = event.target.value; loadRuns(); } },
      el("option", { value: "", textContent: "all statuses (" + page.counts.counted + ")", selected: statusFilter === "" }),
      ...STATUSES.map((status) => el("option", { value: status, textContent: status + " (" + page.counts.byStatus[status] + ")", selected: statusFilter === status })));
    list.replaceChildren(filter, ...page.runs.map((run) =>
      el("div", { className: "run", title: run.goal, onclick: () => showRun(run.id) },
        el("span", { className: "status " + run.status, textContent: run.status }), " ",
        el("span", { className: "muted", textContent: run.id }), el("div", { className: "goal", textContent: run.goal }),
        el("div", { className: "muted", textContent: new Date(run.startedAt).toLocaleString() + " · " + duration(run.durationMs) + " · " + run.steps + " steps · " + run.tokens + " tokens · $" + run.costUsd.toFixed(4) }))));
    document.getElementById("summary").textContent = page.counts.counted + " recent runs";
  } catch (error) {
    list.replaceChildren(el("p", { className: "muted", textContent: "Cannot list runs: " + error.message }));
    // Say why nothing shows, rather than inviting a choice among nothing.
    if (!tokenInput.value) document.getElementById("detail").replaceChildren(el("p", { className: "error", textContent: "No API token: open the URL rein serve printed, or paste the token above." }));
  }
}
`;
