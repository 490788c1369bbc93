/**
 * The run page view: the run's state, its pending approvals, its result, and
 * its trace followed live (read with fetch so the request carries the token;
 * EventSource cannot set headers), with the model's streamed output.
 */
export const RUN_PAGE_SCRIPT = `
let follow = null;

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
`;
