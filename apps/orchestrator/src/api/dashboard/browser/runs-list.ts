import { ApiError, api, apiError, headers, readEvents, tokenInput } from "./api.ts";
import type { RunPage, RunStatus, RunSummary, StatusCounts } from "./api-types.ts";
import { byId, el, testid } from "./dom.ts";
import { duration } from "./format.ts";
import { clearProblem, showProblem } from "./problem.ts";
import { showRun, updateNavCounts } from "./views.ts";

/**
 * The run list view: a page of summaries from GET /runs (status and text
 * filters, paging, counts per status), kept live by GET /runs/events: the
 * stream's `ready` frame triggers the read, then each `run` frame updates,
 * adds or removes one row, and `counts` frames update the counts.
 */

const STATUSES = [
  "planning",
  "dispatching",
  "executing",
  "evaluating",
  "waiting_approval",
  "escalated",
  "done",
  "failed",
  "cancelled",
] satisfies RunStatus[];
const ENDED: RunStatus[] = ["done", "failed", "cancelled"];
const PAGE_SIZE = 50;

/** The list's elements, built once so that typing in the search box survives every live update. */
interface RunListUi {
  status: HTMLSelectElement;
  chips: HTMLDivElement;
  rows: HTMLDivElement;
  prev: HTMLButtonElement;
  pageNumber: HTMLSpanElement;
  next: HTMLButtonElement;
}

interface RunList {
  /** The status filter; "" for all. */
  status: string;
  q: string;
  /** The cursor of each page read so far; the last is the page shown ("" for the first). */
  cursors: string[];
  next: string | null;
  runs: RunSummary[];
  counts: StatusCounts | null;
  follow: AbortController | null;
  ui: RunListUi | null;
  /** Each shown duration field and its run, ticked while the page is open. */
  durations: Map<HTMLElement, RunSummary>;
}

const runList: RunList = {
  status: "",
  q: "",
  cursors: [""],
  next: null,
  runs: [],
  counts: null,
  follow: null,
  ui: null,
  durations: new Map(),
};

// An unfinished run's duration grows while the page is open; an ended one's is what the server said.
const liveDuration = (run: RunSummary): number =>
  ENDED.includes(run.status) ? run.durationMs : Math.max(run.durationMs, Date.now() - Date.parse(run.startedAt));
const waitingText = (waiting: RunSummary["waitingFor"]): string =>
  !waiting
    ? ""
    : "approvals" in waiting
      ? "waiting for approval" + (waiting.approvals.length > 1 ? "s (" + waiting.approvals.length + ")" : "")
      : "waiting for a reply: " + waiting.reply;
const matchesFilter = (run: RunSummary): boolean =>
  (!runList.status || run.status === runList.status) &&
  (!runList.q || run.goal.toLowerCase().includes(runList.q.toLowerCase()) || run.id.toLowerCase().includes(runList.q.toLowerCase()));

export async function loadRuns(): Promise<void> {
  if (!tokenInput.value) {
    showProblem(new Error("no token"));
    renderRuns();
    return;
  }
  const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (runList.status) params.set("status", runList.status);
  if (runList.q) params.set("q", runList.q);
  const cursor = runList.cursors[runList.cursors.length - 1];
  if (cursor) params.set("cursor", cursor);
  try {
    const page = await api<RunPage>("/runs?" + params);
    Object.assign(runList, { runs: page.runs, next: page.nextCursor, counts: page.counts });
    clearProblem();
  } catch (error) {
    runList.runs = [];
    showProblem(error);
  }
  renderRuns();
}

// A changed run: updated in place, added when it is new and this is the first page, removed when it left the filter.
function applyRunChange(run: RunSummary): void {
  const at = runList.runs.findIndex((known) => known.id === run.id);
  if (!matchesFilter(run)) {
    if (at >= 0) runList.runs.splice(at, 1);
  } else if (at >= 0) runList.runs[at] = run;
  else if (runList.cursors.length === 1) {
    runList.runs.push(run);
    runList.runs.sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt) || (b.id < a.id ? -1 : 1));
    runList.runs.length = Math.min(runList.runs.length, PAGE_SIZE);
  }
  renderRuns();
}

function filterBar(): { bar: HTMLDivElement; status: HTMLSelectElement; chips: HTMLDivElement } {
  const reload = () => {
    runList.cursors = [""];
    loadRuns();
  };
  const status: HTMLSelectElement = testid(
    el("select", {
      id: "status-filter",
      onchange: () => {
        runList.status = status.value;
        reload();
      },
    }),
    "status-filter",
  );
  let typing: ReturnType<typeof setTimeout> | undefined;
  const search: HTMLInputElement = testid(
    el("input", {
      id: "run-search",
      type: "search",
      placeholder: "goal or run id",
      value: runList.q,
      oninput: () => {
        clearTimeout(typing);
        typing = setTimeout(() => {
          runList.q = search.value.trim();
          reload();
        }, 300);
      },
    }),
    "run-search",
  );
  const chips = testid(el("div", { id: "status-counts", className: "chips" }), "status-counts");
  return { bar: el("div", { className: "filters" }, status, " ", search, chips), status, chips };
}

function drawCounts(ui: RunListUi): void {
  const counts = runList.counts;
  const count = (value: RunStatus) => (counts ? " (" + counts.byStatus[value] + ")" : "");
  ui.status.replaceChildren(
    el("option", { value: "", textContent: "all statuses" + (counts ? " (" + counts.counted + ")" : ""), selected: runList.status === "" }),
    ...STATUSES.map((value) => el("option", { value, textContent: value + count(value), selected: runList.status === value })),
  );
  ui.chips.replaceChildren(
    ...(counts ? STATUSES.filter((value) => counts.byStatus[value] > 0) : []).map((value) =>
      testid(
        el("button", {
          className: "chip status " + value + (runList.status === value ? " active" : ""),
          textContent: value + " " + counts?.byStatus[value],
          onclick: () => {
            runList.status = runList.status === value ? "" : value;
            runList.cursors = [""];
            loadRuns();
          },
        }),
        "status-count-" + value,
      ),
    ),
  );
  byId("summary").textContent = counts ? counts.counted + " recent runs" : "";
  if (counts) updateNavCounts(counts);
}

function runRow(run: RunSummary): HTMLDivElement {
  const field = (name: string, text: string, className = "") =>
    testid(el("span", { className: "field " + className, textContent: text }), "run-" + name);
  const durationField = field("duration", duration(liveDuration(run)));
  runList.durations.set(durationField, run);
  const row = el(
    "div",
    { className: "run" + (location.hash === "#" + run.id ? " selected" : ""), onclick: () => showRun(run.id) },
    el("div", { className: "run-head" }, field("status", run.status, "status " + run.status), " ", field("goal", run.goal, "goal")),
    el(
      "div",
      { className: "muted run-facts" },
      field("id", run.id, "run-id"),
      " · ",
      field("started", new Date(run.startedAt).toLocaleString()),
      " · ",
      durationField,
      " · ",
      field("steps", run.steps + " steps"),
      " · ",
      field("tokens", run.tokens + " tokens"),
      " · ",
      field("cost", "$" + run.costUsd.toFixed(4)),
      run.waitingFor ? " · " : "",
      run.waitingFor ? field("waiting", waitingText(run.waitingFor), "waiting") : "",
    ),
  );
  row.title = run.goal;
  row.dataset.runId = run.id;
  row.dataset.status = run.status;
  return testid(row, "run-row");
}

function buildRunList(): RunListUi {
  const { bar, status, chips } = filterBar();
  const rows = testid(el("div", { id: "run-rows" }), "run-rows");
  const prev = testid(
    el("button", {
      id: "runs-prev",
      textContent: "← newer",
      onclick: () => {
        runList.cursors.pop();
        loadRuns();
      },
    }),
    "runs-prev",
  );
  const pageNumber = testid(el("span", { id: "runs-page", className: "muted" }), "runs-page");
  const next = testid(
    el("button", {
      id: "runs-next",
      textContent: "older →",
      onclick: () => {
        runList.cursors.push(runList.next ?? "");
        loadRuns();
      },
    }),
    "runs-next",
  );
  byId("runs").replaceChildren(bar, rows, el("div", { className: "pager" }, prev, " ", pageNumber, " ", next));
  runList.ui = { status, chips, rows, prev, pageNumber, next };
  return runList.ui;
}

export function renderRuns(): void {
  const ui = runList.ui ?? buildRunList();
  runList.durations = new Map();
  ui.rows.replaceChildren(
    ...(runList.runs.length
      ? runList.runs.map(runRow)
      : [testid(el("p", { className: "muted", textContent: tokenInput.value ? "No runs match." : "No runs shown." }), "runs-empty")]),
  );
  ui.prev.disabled = runList.cursors.length === 1;
  ui.next.disabled = !runList.next;
  ui.pageNumber.textContent = "page " + runList.cursors.length;
  drawCounts(ui);
}

/** Unfinished runs' durations grow while the page is open. */
export function tickDurations(): void {
  for (const [node, run] of runList.durations) node.textContent = duration(liveDuration(run));
}

/** Follows GET /runs/events for as long as the page is open; reconnects after a drop, reloading the page of runs on ready. */
export async function followRuns(): Promise<void> {
  if (runList.follow) runList.follow.abort();
  runList.follow = null;
  const liveBadge = byId("runs-live");
  if (!tokenInput.value) {
    liveBadge.textContent = "";
    loadRuns();
    return;
  }
  const follow = new AbortController();
  runList.follow = follow;
  try {
    const response = await fetch("/runs/events", { headers: headers(), signal: follow.signal });
    if (!response.ok) throw apiError(response, await response.json().catch(() => ({})));
    await readEvents(response, (kind, data) => {
      if (kind === "ready") {
        liveBadge.textContent = "live";
        loadRuns();
      } else if (kind === "run") applyRunChange(data as RunSummary);
      else if (kind === "counts") {
        runList.counts = data as StatusCounts;
        if (runList.ui) drawCounts(runList.ui);
      }
    });
  } catch (error) {
    // Choosing to follow again (a new token) aborts this follow: that is not a failure to show.
    if (follow.signal.aborted) return;
    showProblem(error);
    if (error instanceof ApiError && error.status === 401) {
      liveBadge.textContent = "";
      renderRuns();
      return;
    }
  }
  if (follow.signal.aborted) return;
  liveBadge.textContent = "reconnecting…";
  setTimeout(() => {
    if (runList.follow === follow) followRuns();
  }, 3000);
}
