import { api, messageOf } from "./api.ts";
import type { RunPage } from "./api-types.ts";
import { byId, el, testid } from "./dom.ts";
import { may, role, roleKnown } from "./identity.ts";
import { showProblem } from "./problem.ts";
import { currentView, enterView, showRun } from "./views.ts";

/**
 * Escalated runs: the reply form (answer the run, as `rein reply` does) with
 * a Cancel button, on a run's page and in the escalations view, which lists
 * every escalated run with why it stopped. Each is offered only to a token
 * whose role may use it (reply: operator; cancel: admin).
 */

/** An escalated run waits for a person's instruction; this sends it as rein reply does, or cancels the run. */
export function replyView(runId: string, onDone: () => unknown = () => showRun(runId)): HTMLElement {
  const instruction = testid(
    el("input", { className: "reply-input", placeholder: "instruction for the run", size: 60 }),
    "escalation-reply-input",
  );
  const problem = testid(el("span", { className: "error" }), "escalation-problem");
  const send = async () => {
    if (!instruction.value.trim()) {
      problem.textContent = "Write the instruction that answers the escalation.";
      return;
    }
    try {
      await api("/runs/" + runId + "/reply", { method: "POST", body: JSON.stringify({ instruction: instruction.value }) });
      onDone();
    } catch (error) {
      problem.textContent = messageOf(error);
    }
  };
  const cancel = async () => {
    try {
      await api("/runs/" + runId + "/cancel", {
        method: "POST",
        body: JSON.stringify({ reason: "cancelled from the dashboard instead of answering its escalation" }),
      });
      onDone();
    } catch (error) {
      problem.textContent = messageOf(error);
    }
  };
  const box = may("operator")
    ? el(
        "div",
        { className: "approval escalation" },
        "The run escalated and waits for your answer: ",
        instruction,
        " ",
        testid(el("button", { textContent: "Reply", onclick: send }), "escalation-reply-send"),
        " ",
        may("admin") ? testid(el("button", { textContent: "Cancel run", onclick: cancel }), "escalation-cancel") : "",
        " ",
        problem,
      )
    : el(
        "div",
        { className: "approval escalation muted" },
        "The run escalated and waits for a person's answer; your token (" + role + ") may not give one.",
      );
  box.dataset.runId = runId;
  return testid(box, "escalation-form");
}

export async function showEscalations(): Promise<void> {
  enterView("escalations");
  const detail = byId("detail");
  try {
    await roleKnown;
    const page = await api<RunPage>("/runs?status=escalated&limit=50");
    if (currentView !== "escalations") return;
    const cards = page.runs.map((run) => {
      const why = run.waitingFor && "reply" in run.waitingFor && run.waitingFor.reply ? run.waitingFor.reply : "(no reason recorded)";
      const openRun = (event: MouseEvent) => {
        event.preventDefault();
        showRun(run.id);
      };
      const card = el(
        "div",
        { className: "escalation-card" },
        el(
          "div",
          { className: "run-head" },
          testid(el("a", { href: "#" + run.id, textContent: run.id, onclick: openRun }), "escalation-run"),
          " ",
          el("span", { className: "goal", title: run.goal, textContent: run.goal }),
        ),
        testid(el("p", { className: "muted", textContent: "Why: " + why }), "escalation-reason"),
        replyView(run.id, showEscalations),
      );
      card.dataset.runId = run.id;
      return testid(card, "escalation-card");
    });
    detail.replaceChildren(
      el("h2", { textContent: "Escalated runs (" + page.runs.length + (page.nextCursor ? "+" : "") + ")" }),
      cards.length
        ? testid(el("div", { id: "escalation-list" }, ...cards), "escalation-list")
        : testid(el("p", { className: "muted", textContent: "No run waits for an answer." }), "escalations-empty"),
    );
  } catch (error) {
    showProblem(error);
  }
}
