/**
 * The run page's panels over the view model of GET /runs/{id}/view: the plan
 * as it evolved, the step graph (nested boxes: a delegated child inside its
 * parent, planned steps joined by arrows), usage and cost against the budget,
 * the verdicts, and the answer with each claim linked to the call behind its
 * evidence. Every panel and item carries a data-testid for browser tests.
 */
export const RUN_VIEW_PANELS_SCRIPT = `
const ms = (value) => value === null || value === undefined ? "" : value < 1000 ? Math.round(value) + " ms" : (value / 1000).toFixed(1) + " s";
// A call key (step|callId|index) as an element id the timeline and the answer's evidence links share.
const callAnchor = (key) => "call-" + key.replace(/[^A-Za-z0-9_-]/g, "_");

function panel(id, title, ...children) {
  return testid(el("section", { id, className: "panel" }, el("h3", { textContent: title }), ...children), id);
}

function planPanel(plan) {
  const current = plan.current;
  if (!current) return panel("run-plan", "Plan", el("p", { className: "muted", textContent: "No plan yet." }));
  const now = current.done
    ? el("p", { textContent: "The planner proposes the goal is met; the evaluator checks the answer." })
    : el("div", {},
        testid(el("p", {}, el("b", { textContent: "Current step: " }), current.currentStep || "?"), "plan-current-step"),
        testid(el("p", {}, el("b", { textContent: "Next: " }), current.nextSteps.join(" → ") || "nothing planned yet"), "plan-next-steps"));
  return panel("run-plan", "Plan (" + plan.revisions.length + " revision" + (plan.revisions.length === 1 ? "" : "s") + ")",
    now,
    current.risks.length ? testid(el("ul", { className: "risks" }, ...current.risks.map((risk) => el("li", { textContent: "risk: " + risk }))), "plan-risks") : "",
    el("ol", { className: "revisions" }, ...plan.revisions.map((revision) =>
      testid(el("li", { className: "revision " + revision.trigger,
        textContent: "plan " + revision.planNo + " (" + revision.trigger.replace(/_/g, " ") + ")" + (revision.reason ? ": " + revision.reason : "") + " → " + (revision.done ? "goal met" : revision.currentStep) }), "plan-revision"))));
}

function attemptBox(attempt, callsByKey) {
  const calls = attempt.callKeys.map((key) => callsByKey.get(key)).filter(Boolean);
  const failedCalls = calls.filter((call) => call.failed).length;
  return testid(el("div", { className: "attempt" + (attempt.status === "failed" ? " failed" : "") },
    "attempt " + attempt.attempt + ": " + (attempt.status || "running") + (attempt.verdict ? ", verdict " + attempt.verdict : "") + (attempt.durationMs !== null ? ", " + ms(attempt.durationMs) : ""),
    el("br"),
    ...calls.map((call) => el("a", { className: "chip" + (call.failed ? " failed" : ""), href: "#" + callAnchor(call.key), textContent: call.tool + " " + call.status, onclick: (event) => { event.preventDefault(); openCall(call.key); } })),
    failedCalls ? el("span", { className: "error", textContent: " " + failedCalls + " failed" }) : ""), "attempt-" + attempt.attempt);
}

function stepBox(step, view, callsByKey) {
  const children = view.graph.edges.filter((edge) => edge.kind === "delegated" && edge.from === step.stepId)
    .map((edge) => view.graph.steps.find((candidate) => candidate.stepId === edge.to)).filter(Boolean);
  return testid(el("div", { className: "step-box" },
    el("div", { className: "step-title", textContent: step.stepId + ": " + step.title }),
    step.delegationReason ? el("div", { className: "muted", textContent: "delegated: " + step.delegationReason }) : "",
    el("div", { className: "muted", textContent: (step.usage.inputTokens + step.usage.outputTokens) + " tokens, $" + step.usage.costUsd.toFixed(4) }),
    ...step.attempts.map((attempt) => attemptBox(attempt, callsByKey)),
    ...children.map((child) => stepBox(child, view, callsByKey))), "step-" + step.stepId);
}

function graphPanel(view, callsByKey) {
  const roots = view.graph.steps.filter((step) => step.parentStepId === null);
  if (!roots.length) return panel("run-graph", "Steps", el("p", { className: "muted", textContent: "No step dispatched yet." }));
  const row = el("div", { className: "graph-row" });
  roots.forEach((step, index) => { if (index) row.append(el("span", { className: "edge", textContent: "→" })); row.append(stepBox(step, view, callsByKey)); });
  return panel("run-graph", "Steps", row);
}

// One bar: spent against its limit; over 80 % is a warning, over the limit an error.
function budgetBar(testId, label, spent, limit, format) {
  const share = limit ? Math.min(spent / limit, 1) : 0;
  const fill = el("div", { className: "fill" + (spent > limit ? " over" : share > 0.8 ? " near" : ""), style: "width: " + (share * 100).toFixed(1) + "%" });
  return testid(el("div", { className: "budget" }, el("span", { className: "budget-label", textContent: label + ": " + format(spent) + " of " + (limit ? format(limit) : "?") }), el("div", { className: "bar" }, fill)), testId);
}

function usagePanel(usage) {
  const total = usage.total, budget = usage.budget || {}, spent = usage.spent;
  const lines = (title, rows) => rows.length ? el("table", { className: "usage-table" },
    el("tr", {}, el("th", { textContent: title }), el("th", { textContent: "calls" }), el("th", { textContent: "input" }), el("th", { textContent: "output" }), el("th", { textContent: "cost" })),
    ...rows.map((row) => testid(el("tr", {}, el("td", { textContent: row.name }), el("td", { textContent: row.modelCalls }), el("td", { textContent: row.usage.inputTokens }), el("td", { textContent: row.usage.outputTokens }), el("td", { textContent: "$" + row.usage.costUsd.toFixed(4) })), "usage-" + row.name))) : "";
  return panel("run-usage", "Usage and cost",
    budgetBar("budget-tokens", "tokens", spent ? spent.tokens : total.inputTokens + total.outputTokens, budget.maxTokens, (n) => String(n)),
    budgetBar("budget-cost", "cost", spent ? spent.costUsd : total.costUsd, budget.maxCostUsd, (n) => "$" + n.toFixed(4)),
    budgetBar("budget-steps", "steps", spent ? spent.steps : 0, budget.maxSteps, (n) => String(n)),
    usage.unpriced.length ? el("p", { className: "error", textContent: "price unknown for " + usage.unpriced.join("; ") + ": the cost budget cannot see their calls" }) : "",
    lines("step", usage.byStep), lines("role", usage.byRole));
}

function verdictsPanel(verdicts) {
  return panel("run-verdicts", "Verdicts", verdicts.length ? el("ul", {}, ...verdicts.map((verdict) =>
    testid(el("li", { className: "verdict " + verdict.decision },
      el("b", { textContent: (verdict.subject === "final_answer" ? "final answer" : verdict.stepId + (verdict.attempt ? " attempt " + verdict.attempt : "")) + ": " + verdict.decision }),
      " " + verdict.reasons.join("; "),
      verdict.feedback ? el("div", { className: "muted", textContent: "feedback: " + verdict.feedback }) : "",
      verdict.checks.length ? el("ul", {}, ...verdict.checks.map((check) => el("li", { className: check.passed ? "check passed" : "check failed", textContent: (check.passed ? "✓ " : "✗ ") + check.check + ": " + check.detail }))) : ""), "verdict"))) : el("p", { className: "muted", textContent: "No verdict yet." }));
}

function answerPanel(answer) {
  if (!answer) return panel("run-answer", "Answer", el("p", { className: "muted", textContent: "No answer yet." }));
  return panel("run-answer", "Answer" + (answer.partial ? " (partial)" : ""),
    testid(el("p", { className: "answer-text", textContent: answer.text || answer.summary }), "answer-text"),
    el("ul", {}, ...answer.claims.map((claim) => testid(el("li", { className: "claim " + claim.status },
      el("span", { className: "claim-status", textContent: claim.status }), " " + claim.text + " ",
      ...(claim.evidence.length ? claim.evidence.map((evidence) => evidence.callKey
        ? testid(el("a", { className: "evidence" + (evidence.failed ? " failed" : ""), href: "#" + callAnchor(evidence.callKey), textContent: "[" + evidence.tool + " " + evidence.id + "]", onclick: (event) => { event.preventDefault(); openCall(evidence.callKey); } }), "evidence-link")
        : el("span", { className: "evidence muted", textContent: "[" + evidence.id + "]" })) : [el("span", { className: "error", textContent: "[no evidence]" })])), "claim"))),
    answer.gaps.length ? testid(el("ul", { className: "gaps" }, ...answer.gaps.map((gap) => testid(el("li", { className: "gap", textContent: "gap: " + gap }), "gap"))), "answer-gaps") : "",
    answer.missing.length ? el("ul", { className: "gaps" }, ...answer.missing.map((missing) => el("li", { className: "gap", textContent: "missing: " + missing }))) : "");
}
`;
