/**
 * The web dashboard: one self-contained page over the HTTP API. It lists
 * runs, follows one run's trace live, and lets a person approve or deny
 * (with a note, in the page), answer an escalated run, or cancel. The token arrives once in the fragment of the URL that `rein serve`
 * prints and lives in sessionStorage; every request, the trace stream
 * included, carries it as `Authorization: Bearer` (the stream is read with
 * fetch, not EventSource, which cannot set headers), never in a URL the
 * server sees. Same-origin only: the API grants no cross-site access.
 */
export const DASHBOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Rein</title>
<style>
  body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #1d1d1f; background: #f6f6f4; }
  header { padding: 10px 16px; background: #1d1d1f; color: #fff; display: flex; gap: 12px; align-items: center; }
  header h1 { font-size: 16px; margin: 0; }
  main { display: grid; grid-template-columns: 320px 1fr; min-height: calc(100vh - 44px); }
  #runs { border-right: 1px solid #ddd; overflow: auto; background: #fff; }
  .run { padding: 8px 12px; border-bottom: 1px solid #eee; cursor: pointer; }
  .run:hover, .run.selected { background: #eef3ff; }
  .goal { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  .error { color: #a00; }
  #status-filter { margin: 8px 12px; }
  .status { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 12px; background: #e8e8e8; }
  .status.done { background: #d7f5dc; } .status.failed, .status.cancelled { background: #fbdada; }
  .status.waiting_approval, .status.escalated { background: #fff1c2; }
  #detail { padding: 16px; overflow: auto; }
  #timeline { font: 12px/1.5 ui-monospace, monospace; background: #fff; border: 1px solid #ddd; padding: 8px; white-space: pre-wrap; }
  .approval { background: #fff8dd; border: 1px solid #e8d98b; padding: 8px; margin: 8px 0; }
  button { margin-right: 6px; }
  .muted { color: #777; }
  #live { font: 12px/1.5 ui-monospace, monospace; white-space: pre-wrap; margin-top: 8px; }
</style>
</head>
<body>
<header><h1>Rein</h1><span class="muted" id="summary"></span>
  <label style="margin-left:auto">token <input id="token" type="password" size="16"></label></header>
<main>
  <section id="runs"></section>
  <section id="detail"><p class="muted">Choose a run.</p></section>
</main>
<script>
const tokenInput = document.getElementById("token");
// rein serve prints a URL whose fragment carries the token; a fragment never
// reaches the server. Keep it for this tab only and drop it from the address bar.
const fromUrl = /^#token=([A-Za-z0-9_-]+)$/.exec(location.hash);
if (fromUrl) {
  sessionStorage.setItem("rein-token", fromUrl[1]);
  history.replaceState(null, "", location.pathname);
}
tokenInput.value = sessionStorage.getItem("rein-token") || "";
tokenInput.addEventListener("change", () => { sessionStorage.setItem("rein-token", tokenInput.value); loadRuns(); });
const headers = () => (tokenInput.value ? { authorization: "Bearer " + tokenInput.value, "content-type": "application/json" } : { "content-type": "application/json" });
const api = async (path, init = {}) => {
  const response = await fetch(path, { ...init, headers: headers() });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.error || response.status + "");
  return body;
};
const el = (tag, attrs = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), attrs);
  for (const child of children) node.append(child);
  return node;
};
let follow = null;

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

// "exit 1" or "killed by SIGKILL" for a command that did not exit cleanly (tool.executed), else null.
function failedExit(p) {
  if (typeof p.killedBy === "string") return "killed by " + p.killedBy;
  if (typeof p.exitCode === "number") return p.exitCode === 0 ? null : "exit " + p.exitCode;
  const match = typeof p.output === "string" ? /^exit code: (\\d+|none)(?: \\(killed by (\\w+))?/.exec(p.output) : null;
  if (!match) return null;
  return match[2] ? "killed by " + match[2] : match[1] === "0" ? null : "exit " + match[1];
}

// One timeline line per event worth showing; exits remembers each command's failed exit until its result line.
function line(event, exits) {
  const p = event.payload, step = event.stepId ? "[" + event.stepId + "] " : "";
  const callKey = step + p.callId + "|" + p.index;
  switch (event.kind) {
    case "run.submitted": return (p.unpriced || []).length ? "price unknown for " + p.unpriced.join("; ") + ": the cost budget cannot see their calls" : null;
    case "model.responded": return p.price === "unknown" ? step + p.role + " call to " + p.provider + "/" + p.model + ": price unknown" : null;
    case "plan.ready": return "plan: " + (p.done ? "proposes the goal is met; the evaluator checks the answer" : JSON.stringify(p.currentStep));
    case "step.dispatched": return step + "dispatched " + JSON.stringify(p.title) + " attempt " + p.attempt + " tools " + (p.tools || []).join(", ");
    case "tool.called": return step + "  call " + p.tool + " " + JSON.stringify(p.args ?? {}).slice(0, 160);
    case "tool.executed": { const exit = failedExit(p); if (exit) exits.set(callKey, exit); return null; }
    case "tool.result": return step + "    -> " + (p.status === "ok" && exits.has(callKey) ? exits.get(callKey) : p.status) + " in " + Math.round(p.durationMs) + " ms";
    case "permission.decided": return p.decision === "allow" ? null : step + "    " + p.decision + " by " + p.rule;
    case "step.suspended": return step + "waiting: " + (p.reason === "approval" ? "approval " + p.approvalId : p.reason);
    case "verdict.ready": return step + (p.subject === "final_answer" ? "verdict on the final answer " : "verdict ") + p.decision + ": " + (p.reasons || []).join("; ");
    case "run.done": case "run.failed": case "run.cancelled": return "run " + event.kind.slice(4) + ": " + p.reason;
    case "run.escalated": return "escalated: " + (p.reasons || []).join("; ");
    default: return null;
  }
}

// The answer, each claim with the evaluator's finding and the evidence it cites, and the gaps.
function resultView(result) {
  if (!result.answer) return el("p", { textContent: "Result: " + result.summary });
  const status = new Map((result.claims || []).map((check) => [check.text, check.status]));
  return el("div", { className: "result" },
    el("p", { textContent: "Answer: " + result.answer.answer }),
    el("ul", {}, ...result.answer.claims.map((claim) =>
      el("li", { className: "claim " + (status.get(claim.text) || "unchecked"), textContent: "claim (" + (status.get(claim.text) || "unchecked") + "): " + claim.text + " [evidence: " + (claim.evidence.join(", ") || "none") + "]" })),
      ...result.answer.gaps.map((gap) => el("li", { className: "gap", textContent: "gap: " + gap }))));
}

async function showRun(runId) {
  if (follow) follow.abort();
  history.replaceState(null, "", "#" + runId);
  follow = new AbortController();
  for (const node of document.querySelectorAll(".run")) node.classList.toggle("selected", node.textContent.includes(runId));
  const state = await api("/runs/" + runId);
  const { approvals } = await api("/approvals");
  const timeline = el("div", { id: "timeline" });
  const liveBox = el("div", { id: "live", className: "muted" });
  const detail = document.getElementById("detail");
  detail.replaceChildren(
    el("h2", { textContent: state.goal.text }),
    el("p", {}, el("span", { className: "status " + state.status, textContent: state.status }), " " + (state.stopReason || ""),
      " ", ["done", "failed", "cancelled"].includes(state.status) ? "" : el("button", { textContent: "Cancel run", onclick: () => api("/runs/" + runId + "/cancel", { method: "POST", body: JSON.stringify({ reason: "cancelled from the dashboard" }) }).then(() => showRun(runId)) })),
    ...approvals.filter((approval) => approval.runId === runId).map((approval) => approvalView(approval, runId)),
    state.status === "escalated" ? replyView(runId) : "",
    state.result ? resultView(state.result) : "",
    timeline,
    liveBox,
  );
  let response;
  try {
    response = await fetch("/runs/" + runId + "/events", { headers: headers(), signal: follow.signal });
  } catch (error) {
    // Choosing another run (or re-showing this one) aborts the old follow: that is not a failure to show.
    if (error.name !== "AbortError") liveBox.textContent = "could not follow the run's events: " + error.message;
    return;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const exits = new Map();
  for (;;) {
    const { value, done } = await reader.read().catch(() => ({ done: true }));
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf("\\n\\n")) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame.split("\\n").find((row) => row.startsWith("data: "));
      if (!data) continue;
      if (frame.startsWith("event: live")) { showLive(liveBox, JSON.parse(data.slice(6))); continue; }
      const text = line(JSON.parse(data.slice(6)), exits);
      if (text) timeline.append(text + "\\n");
    }
  }
}

// Model output as it streams, one line per role and step; a retry voids what that call showed so far.
// A call's start and end carry no text.
function showLive(box, event) {
  if (event.type !== "text_delta" && event.type !== "retry") return;
  const key = event.role + " " + (event.stepId || "");
  let row = box.querySelector('[data-key="' + CSS.escape(key) + '"]');
  if (!row) { row = el("div", { className: "live-row" }); row.dataset.key = key; box.append(row); }
  if (event.type === "retry") { row.textContent = "[" + key.trim() + " retried: " + event.reason + "; partial output discarded] "; return; }
  row.textContent = (row.textContent + event.text).slice(-2000);
}

// Approve or deny in the page: the approver's name (kept for the tab) and a note, which a denial needs as its reason.
function approvalView(approval, runId) {
  const approver = el("input", { placeholder: "your name", value: sessionStorage.getItem("rein-approver") || "" });
  const note = el("input", { placeholder: "note (a denial must say why)", size: 40 });
  const problem = el("span", { className: "error" });
  const decide = async (verb) => {
    if (!approver.value) { problem.textContent = "Say who decides: your name is recorded with the decision."; return; }
    if (verb === "deny" && !note.value) { problem.textContent = "A denial must say why: write it in the note."; return; }
    sessionStorage.setItem("rein-approver", approver.value);
    const body = verb === "deny" ? { approver: approver.value, reason: note.value } : { approver: approver.value, note: note.value || undefined };
    try { await api("/approvals/" + approval.approvalId + "/" + verb, { method: "POST", body: JSON.stringify(body) }); showRun(runId); } catch (error) { problem.textContent = error.message; }
  };
  return el("div", { className: "approval" }, "Approval " + approval.approvalId + ": " + approval.tool + " " + JSON.stringify(approval.args) + " ", el("br"),
    approver, " ", note, " ",
    el("button", { textContent: "Approve", onclick: () => decide("approve") }),
    el("button", { textContent: "Deny", onclick: () => decide("deny") }), " ", problem);
}

// An escalated run waits for a person's instruction; this sends it as rein reply does.
function replyView(runId) {
  const instruction = el("input", { placeholder: "instruction for the run", size: 60 });
  const problem = el("span", { className: "error" });
  const send = async () => {
    try { await api("/runs/" + runId + "/reply", { method: "POST", body: JSON.stringify({ instruction: instruction.value }) }); showRun(runId); } catch (error) { problem.textContent = error.message; }
  };
  return el("div", { className: "approval" }, "The run escalated and waits for your answer: ", instruction, " ", el("button", { textContent: "Reply", onclick: send }), " ", problem);
}

loadRuns();
setInterval(loadRuns, 5000);
// A link to a run (#run_…) opens it.
if (location.hash.length > 1) showRun(location.hash.slice(1));
</script>
</body>
</html>
`;
