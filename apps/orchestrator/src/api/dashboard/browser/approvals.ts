import { api, messageOf } from "./api.ts";
import type { QueuedApproval } from "./api-types.ts";
import { byId, el, testid } from "./dom.ts";
import { duration } from "./format.ts";
import { identity, may, role, roleKnown } from "./identity.ts";
import { showProblem } from "./problem.ts";
import { currentView, enterView, showRun } from "./views.ts";

/**
 * The approvals queue across runs (GET /approvals), and the card each
 * pending approval is shown as, here and on its run's page: the action and
 * its arguments, the rule that asked for a person, the evidence gathered
 * before it, the expiry, and Approve / Deny with a note (for a token whose
 * role may decide). The approver is the token's identity, recorded by the
 * server; the page only says who that is.
 */

const pretty = (value: unknown) => JSON.stringify(value, null, 2);
const untilText = (iso: string) => {
  const left = Date.parse(iso) - Date.now();
  return left <= 0 ? "expired" : "expires in " + duration(left);
};

function evidenceView(approval: QueuedApproval): HTMLElement {
  if (!approval.evidence || approval.evidence.length === 0) {
    return testid(el("p", { className: "muted", textContent: "No tool calls before this request." }), "approval-evidence");
  }
  const earlier = approval.earlierCalls ? " (latest " + approval.evidence.length + "; " + approval.earlierCalls + " earlier)" : "";
  return testid(
    el(
      "div",
      { className: "evidence" },
      el("div", { className: "muted", textContent: "Evidence gathered before the request" + earlier + ":" }),
      ...approval.evidence.map((call) => {
        const output =
          call.output === null
            ? "(not executed)"
            : call.output + (call.outputTruncated ? "\n… (cut; the whole output is in the run's call view)" : "");
        const item = el(
          "details",
          { className: "evidence-call" },
          el("summary", {
            textContent:
              (call.stepId ? "[" + call.stepId + "] " : "") +
              call.tool +
              " → " +
              call.status +
              " " +
              JSON.stringify(call.input ?? {}).slice(0, 120),
          }),
          el("pre", { textContent: output }),
        );
        item.dataset.callId = call.callId;
        return testid(item, "approval-evidence-call");
      }),
    ),
    "approval-evidence",
  );
}

// What a person typed into each approval's note: the run page re-renders its header as the trace
// streams in, and a rebuilt card must not drop a note half typed.
const approvalNotes = new Map<string, string>();

/** One pending approval; after a decision, onDecided redraws the view that holds it (by default, its run's page). */
export function approvalView(approval: QueuedApproval, onDecided: () => unknown = () => showRun(approval.runId)): HTMLElement {
  const note = testid(
    el("textarea", {
      className: "approval-note",
      placeholder: "note (a denial must say why)",
      rows: 2,
      cols: 50,
      value: approvalNotes.get(approval.approvalId) || "",
    }),
    "approval-note",
  );
  note.addEventListener("input", () => approvalNotes.set(approval.approvalId, note.value));
  const problem = testid(el("span", { className: "error" }), "approval-problem");
  const decide = async (verb: "approve" | "deny") => {
    if (verb === "deny" && !note.value.trim()) {
      problem.textContent = "A denial must say why: write it in the note.";
      return;
    }
    const body = verb === "deny" ? { reason: note.value.trim() } : { note: note.value.trim() || undefined };
    try {
      await api("/approvals/" + approval.approvalId + "/" + verb, { method: "POST", body: JSON.stringify(body) });
      onDecided();
    } catch (error) {
      problem.textContent = messageOf(error);
    }
  };
  const openRun = (event: MouseEvent) => {
    event.preventDefault();
    showRun(approval.runId);
  };
  const rule =
    "Needs approval by rule " +
    (approval.rule || "(unknown: the request is no longer in the trace)") +
    (approval.ruleReason ? ": " + approval.ruleReason : "");
  const actions = may("operator")
    ? [
        note,
        el("br"),
        testid(el("button", { className: "approve", textContent: "Approve", onclick: () => decide("approve") }), "approval-approve"),
        testid(el("button", { className: "deny", textContent: "Deny", onclick: () => decide("deny") }), "approval-deny"),
        el("span", { className: "muted", textContent: identity ? " deciding as " + identity : "" }),
        " ",
        problem,
      ]
    : [
        testid(
          el("p", { className: "muted", textContent: "Your token (" + role + ") may not decide approvals; an operator's may." }),
          "approval-read-only",
        ),
      ];
  const card = el(
    "div",
    { className: "approval" },
    el(
      "div",
      { className: "approval-head" },
      testid(el("strong", { className: "approval-action", textContent: approval.tool }), "approval-action"),
      " in ",
      testid(el("a", { href: "#" + approval.runId, textContent: approval.runId, onclick: openRun }), "approval-run"),
      approval.goal ? el("span", { className: "muted goal", title: approval.goal, textContent: " — " + approval.goal }) : "",
    ),
    testid(el("pre", { className: "approval-args", textContent: pretty(approval.args) }), "approval-args"),
    testid(el("div", { className: "approval-rule", textContent: rule }), "approval-rule"),
    evidenceView(approval),
    testid(
      el("div", {
        className: "muted approval-expiry",
        title: approval.expiresAt,
        textContent: untilText(approval.expiresAt) + " (" + new Date(approval.expiresAt).toLocaleString() + ")",
      }),
      "approval-expiry",
    ),
    ...actions,
  );
  card.dataset.approvalId = approval.approvalId;
  return testid(card, "approval-card");
}

export async function showApprovals(): Promise<void> {
  enterView("approvals");
  const detail = byId("detail");
  try {
    await roleKnown;
    const { approvals } = await api<{ approvals: QueuedApproval[] }>("/approvals");
    if (currentView !== "approvals") return;
    detail.replaceChildren(
      el("h2", { textContent: "Approvals waiting (" + approvals.length + ")" }),
      approvals.length
        ? testid(
            el("div", { id: "approval-queue" }, ...approvals.map((approval) => approvalView(approval, showApprovals))),
            "approval-queue",
          )
        : testid(el("p", { className: "muted", textContent: "No approval waits for a person." }), "approvals-empty"),
    );
  } catch (error) {
    showProblem(error);
  }
}
