/**
 * The run list view: a page of summaries from GET /runs (status and text
 * filters, paging, counts per status), kept live by GET /runs/events: the
 * stream's `ready` frame triggers the read, then each `run` frame updates,
 * adds or removes one row, and `counts` frames update the counts. Read with
 * fetch so the request carries the token (EventSource cannot set headers).
 */
export const RUNS_LIST_SCRIPT = `
const STATUSES = ["planning", "dispatching", "executing", "evaluating", "waiting_approval", "escalated", "done", "failed", "cancelled"];
const ENDED = ["done", "failed", "cancelled"];
const PAGE_SIZE = 50;
const runList = { status: "", q: "", cursors: [""], next: null, runs: [], counts: null, follow: null, ui: null, durations: new Map() };
const duration = (ms) => ms < 60000 ? Math.round(ms / 1000) + " s" : ms < 3600000 ? Math.round(ms / 60000) + " min" : (ms / 3600000).toFixed(1) + " h";
// An unfinished run's duration grows while the page is open; an ended one's is what the server said.
const liveDuration = (run) => ENDED.includes(run.status) ? run.durationMs : Math.max(run.durationMs, Date.now() - Date.parse(run.startedAt));
const waitingText = (waiting) => !waiting ? "" : waiting.approvals ? "waiting for approval" + (waiting.approvals.length > 1 ? "s (" + waiting.approvals.length + ")" : "") : "waiting for a reply: " + waiting.reply;
const matchesFilter = (run) => (!runList.status || run.status === runList.status) &&
  (!runList.q || run.goal.toLowerCase().includes(runList.q.toLowerCase()) || run.id.toLowerCase().includes(runList.q.toLowerCase()));

// Says what went wrong where the person looks first; a refused token says so rather than "Choose a run."
function showProblem(error) {
  const banner = document.getElementById("problem");
  if (!error) { banner.replaceChildren(); banner.hidden = true; return; }
  const text = !tokenInput.value ? "No API token: open the URL rein serve printed, or paste your token above."
    : error.status === 401 ? "The API refused this token (" + error.message + "). Paste the token rein serve printed, or yours from --tokens-file."
    : "The API could not be reached: " + error.message;
  banner.replaceChildren(testid(el("span", { className: "error", textContent: text }), "problem-text"));
  banner.hidden = false;
  // The banner says what is wrong; the detail pane stops inviting a choice among runs it cannot show.
  if (!tokenInput.value || error.status === 401) document.getElementById("detail").replaceChildren(el("p", { className: "muted", textContent: "Nothing to show until the API accepts a token (see above)." }));
}

async function loadRuns() {
  if (!tokenInput.value) { showProblem(new Error("no token")); renderRuns(); return; }
  const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (runList.status) params.set("status", runList.status);
  if (runList.q) params.set("q", runList.q);
  const cursor = runList.cursors[runList.cursors.length - 1];
  if (cursor) params.set("cursor", cursor);
  try {
    const page = await api("/runs?" + params);
    Object.assign(runList, { runs: page.runs, next: page.nextCursor, counts: page.counts });
    showProblem(null);
  } catch (error) {
    runList.runs = [];
    showProblem(error);
  }
  renderRuns();
}

// A changed run: updated in place, added when it is new and this is the first page, removed when it left the filter.
function applyRunChange(run) {
  const at = runList.runs.findIndex((known) => known.id === run.id);
  if (!matchesFilter(run)) { if (at >= 0) runList.runs.splice(at, 1); }
  else if (at >= 0) runList.runs[at] = run;
  else if (runList.cursors.length === 1) {
    runList.runs.push(run);
    runList.runs.sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt) || (b.id < a.id ? -1 : 1));
    runList.runs.length = Math.min(runList.runs.length, PAGE_SIZE);
  }
  renderRuns();
}

// The filter bar is built once, so typing in the search box survives every live update; counts update in place.
function filterBar() {
  const reload = () => { runList.cursors = [""]; loadRuns(); };
  const status = testid(el("select", { id: "status-filter", onchange: (event) => { runList.status = event.target.value; reload(); } }), "status-filter");
  let typing = null;
  const search = testid(el("input", { id: "run-search", type: "search", placeholder: "goal or run id", value: runList.q,
    oninput: (event) => { clearTimeout(typing); typing = setTimeout(() => { runList.q = event.target.value.trim(); reload(); }, 300); } }), "run-search");
  const chips = testid(el("div", { id: "status-counts", className: "chips" }), "status-counts");
  runList.ui = { status, chips };
  return el("div", { className: "filters" }, status, " ", search, chips);
}

function drawCounts() {
  const { status, chips } = runList.ui;
  const counts = runList.counts;
  const count = (value) => counts ? " (" + counts.byStatus[value] + ")" : "";
  status.replaceChildren(el("option", { value: "", textContent: "all statuses" + (counts ? " (" + counts.counted + ")" : ""), selected: runList.status === "" }),
    ...STATUSES.map((value) => el("option", { value, textContent: value + count(value), selected: runList.status === value })));
  chips.replaceChildren(...STATUSES.filter((value) => counts && counts.byStatus[value] > 0).map((value) =>
    testid(el("button", { className: "chip status " + value + (runList.status === value ? " active" : ""), textContent: value + " " + counts.byStatus[value],
      onclick: () => { runList.status = runList.status === value ? "" : value; runList.cursors = [""]; loadRuns(); } }), "status-count-" + value)));
  document.getElementById("summary").textContent = counts ? counts.counted + " recent runs" : "";
  if (counts) updateNavCounts(counts);
}

function runRow(run) {
  const field = (name, text, className = "") => testid(el("span", { className: "field " + className, textContent: text }), "run-" + name);
  const durationField = field("duration", duration(liveDuration(run)));
  runList.durations.set(durationField, run);
  const row = el("div", { className: "run" + (location.hash === "#" + run.id ? " selected" : ""), onclick: () => showRun(run.id) },
    el("div", { className: "run-head" }, field("status", run.status, "status " + run.status), " ", field("goal", run.goal, "goal")),
    el("div", { className: "muted run-facts" }, field("id", run.id, "run-id"), " · ",
      field("started", new Date(run.startedAt).toLocaleString()), " · ", durationField, " · ",
      field("steps", run.steps + " steps"), " · ", field("tokens", run.tokens + " tokens"), " · ", field("cost", "$" + run.costUsd.toFixed(4)),
      run.waitingFor ? " · " : "", run.waitingFor ? field("waiting", waitingText(run.waitingFor), "waiting") : ""));
  row.title = run.goal;
  row.dataset.runId = run.id;
  row.dataset.status = run.status;
  return testid(row, "run-row");
}

function renderRuns() {
  const list = document.getElementById("runs");
  if (!runList.ui) {
    runList.ui = {};
    const rows = testid(el("div", { id: "run-rows" }), "run-rows");
    const prev = testid(el("button", { id: "runs-prev", textContent: "← newer", onclick: () => { runList.cursors.pop(); loadRuns(); } }), "runs-prev");
    const pageNumber = testid(el("span", { id: "runs-page", className: "muted" }), "runs-page");
    const next = testid(el("button", { id: "runs-next", textContent: "older →", onclick: () => { runList.cursors.push(runList.next); loadRuns(); } }), "runs-next");
    list.replaceChildren(filterBar(), rows, el("div", { className: "pager" }, prev, " ", pageNumber, " ", next));
    Object.assign(runList.ui, { rows, prev, pageNumber, next });
  }
  const { rows, prev, pageNumber, next } = runList.ui;
  runList.durations = new Map();
  rows.replaceChildren(...(runList.runs.length ? runList.runs.map(runRow)
    : [testid(el("p", { className: "muted", textContent: tokenInput.value ? "No runs match." : "No runs shown." }), "runs-empty")]));
  prev.disabled = runList.cursors.length === 1;
  next.disabled = !runList.next;
  pageNumber.textContent = "page " + runList.cursors.length;
  drawCounts();
}

// Unfinished runs' durations grow while the page is open.
function tickDurations() {
  for (const [node, run] of runList.durations || []) node.textContent = duration(liveDuration(run));
}

// Follows GET /runs/events for as long as the page is open; reconnects after a drop, reloading the page of runs on ready.
async function followRuns() {
  if (runList.follow) runList.follow.abort();
  runList.follow = null;
  const liveBadge = document.getElementById("runs-live");
  if (!tokenInput.value) { liveBadge.textContent = ""; loadRuns(); return; }
  const follow = new AbortController();
  runList.follow = follow;
  try {
    const response = await fetch("/runs/events", { headers: headers(), signal: follow.signal });
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      const error = new Error(body.error || String(response.status));
      error.status = response.status;
      throw error;
    }
    await readEvents(response, (kind, data) => {
      if (kind === "ready") { liveBadge.textContent = "live"; loadRuns(); }
      else if (kind === "run") applyRunChange(data);
      else if (kind === "counts") { runList.counts = data; if (runList.ui) drawCounts(); }
    });
  } catch (error) {
    if (error.name === "AbortError" || follow.signal.aborted) return;
    showProblem(error);
    if (error.status === 401) { liveBadge.textContent = ""; renderRuns(); return; }
  }
  if (follow.signal.aborted) return;
  liveBadge.textContent = "reconnecting…";
  setTimeout(() => { if (runList.follow === follow) followRuns(); }, 3000);
}
`;
