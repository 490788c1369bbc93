import type {
  AnswerView,
  AttemptView,
  CallView,
  ClaimView,
  EvidenceLink,
  GroupView,
  PlanHistory,
  RunView,
  StepNode,
  UsageLine,
  UsageView,
  VerdictView,
} from "./api-types.ts";
import { callAnchor, openCall } from "./call-anchor.ts";
import { type Child, el, testid } from "./dom.ts";
import { ms } from "./format.ts";

/**
 * The run page's panels over the view model of GET /runs/{id}/view: the plan
 * as it evolved, the step graph (nested boxes: a delegated child inside its
 * parent, planned steps joined by arrows), usage and cost against the budget,
 * the verdicts, and the answer with each claim linked to the call behind its
 * evidence. Every panel and item carries a data-testid for browser tests.
 */

export function panel(id: string, title: string, ...children: Child[]): HTMLElement {
  return testid(el("section", { id, className: "panel" }, el("h3", { textContent: title }), ...children), id);
}

export function planPanel(plan: PlanHistory): HTMLElement {
  const current = plan.current;
  if (!current) return panel("run-plan", "Plan", el("p", { className: "muted", textContent: "No plan yet." }));
  const now = current.done
    ? el("p", { textContent: "The planner proposes the goal is met; the evaluator checks the answer." })
    : el(
        "div",
        {},
        testid(el("p", {}, el("b", { textContent: "Current step: " }), current.currentStep || "steps side by side"), "plan-current-step"),
        testid(el("p", {}, el("b", { textContent: "Next: " }), current.nextSteps.join(" → ") || "nothing planned yet"), "plan-next-steps"),
      );
  return panel(
    "run-plan",
    "Plan (" + plan.revisions.length + " revision" + (plan.revisions.length === 1 ? "" : "s") + ")",
    now,
    current.risks.length
      ? testid(el("ul", { className: "risks" }, ...current.risks.map((risk) => el("li", { textContent: "risk: " + risk }))), "plan-risks")
      : "",
    el(
      "ol",
      { className: "revisions" },
      ...plan.revisions.map((revision) =>
        testid(
          el("li", {
            className: "revision " + revision.trigger,
            textContent:
              "plan " +
              revision.planNo +
              " (" +
              revision.trigger.replace(/_/g, " ") +
              ")" +
              (revision.reason ? ": " + revision.reason : "") +
              " → " +
              (revision.done ? "goal met" : revision.currentStep || "steps side by side"),
          }),
          "plan-revision",
        ),
      ),
    ),
  );
}

function attemptBox(attempt: AttemptView, callsByKey: Map<string, CallView>): HTMLElement {
  const calls = attempt.callKeys.map((key) => callsByKey.get(key)).filter((call) => call !== undefined);
  const failedCalls = calls.filter((call) => call.failed).length;
  return testid(
    el(
      "div",
      { className: "attempt" + (attempt.status === "failed" ? " failed" : "") },
      "attempt " +
        attempt.attempt +
        ": " +
        (attempt.status || "running") +
        (attempt.verdict ? ", verdict " + attempt.verdict : "") +
        (attempt.durationMs !== null ? ", " + ms(attempt.durationMs) : ""),
      el("br"),
      ...calls.map((call) =>
        el("a", {
          className: "chip" + (call.failed ? " failed" : ""),
          href: "#" + callAnchor(call.key),
          textContent: call.tool + " " + call.status,
          onclick: (event) => {
            event.preventDefault();
            openCall(call.key);
          },
        }),
      ),
      failedCalls ? el("span", { className: "error", textContent: " " + failedCalls + " failed" }) : "",
    ),
    "attempt-" + attempt.attempt,
  );
}

/** A step's children: those it asked for in one turn side by side in their group's box, the others one under another. */
function childBoxes(step: StepNode, children: StepNode[], view: RunView, callsByKey: Map<string, CallView>): HTMLElement[] {
  const boxes: HTMLElement[] = [];
  const shown = new Set<string>();
  for (const child of children) {
    if (shown.has(child.stepId)) continue;
    const group = view.graph.groups.find((candidate) => candidate.parentStepId === step.stepId && candidate.stepIds.includes(child.stepId));
    const members = group ? children.filter((candidate) => group.stepIds.includes(candidate.stepId)) : [child];
    for (const member of members) shown.add(member.stepId);
    boxes.push(group ? groupBox(group, members, view, callsByKey) : stepBox(child, view, callsByKey));
  }
  return boxes;
}

function stepBox(step: StepNode, view: RunView, callsByKey: Map<string, CallView>): HTMLElement {
  const children = view.graph.edges
    .filter((edge) => edge.kind === "delegated" && edge.from === step.stepId)
    .map((edge) => view.graph.steps.find((candidate) => candidate.stepId === edge.to))
    .filter((child) => child !== undefined);
  return testid(
    el(
      "div",
      { className: "step-box" },
      el("div", { className: "step-title", textContent: step.stepId + ": " + step.title }),
      step.delegationReason ? el("div", { className: "muted", textContent: "delegated: " + step.delegationReason }) : "",
      el("div", {
        className: "muted",
        textContent: step.usage.inputTokens + step.usage.outputTokens + " tokens, $" + step.usage.costUsd.toFixed(4),
      }),
      ...step.attempts.map((attempt) => attemptBox(attempt, callsByKey)),
      ...childBoxes(step, children, view, callsByKey),
    ),
    "step-" + step.stepId,
  );
}

export function graphPanel(view: RunView, callsByKey: Map<string, CallView>): HTMLElement {
  const roots = view.graph.steps.filter((step) => step.parentStepId === null);
  if (!roots.length) return panel("run-graph", "Steps", el("p", { className: "muted", textContent: "No step dispatched yet." }));
  const row = el("div", { className: "graph-row" });
  const shown = new Set<string>();
  for (const step of roots) {
    if (shown.has(step.stepId)) continue;
    if (row.childElementCount) row.append(el("span", { className: "edge", textContent: "→" }));
    // A plan's group: its members side by side in one box, where the flow reaches the first of them.
    const group = view.graph.groups.find((candidate) => candidate.parentStepId === null && candidate.stepIds.includes(step.stepId));
    const members = group ? roots.filter((root) => group.stepIds.includes(root.stepId)) : [step];
    for (const member of members) shown.add(member.stepId);
    row.append(group ? groupBox(group, members, view, callsByKey) : stepBox(step, view, callsByKey));
  }
  return panel("run-graph", "Steps", row);
}

/** Steps dispatched at once, side by side, under their join rule and outcome. */
function groupBox(group: GroupView, members: StepNode[], view: RunView, callsByKey: Map<string, CallView>): HTMLElement {
  return testid(
    el(
      "div",
      { className: "group-box " + group.outcome },
      el("div", {
        className: "muted",
        textContent: "group " + group.groupId + ", join " + group.join + ": " + group.outcome,
      }),
      el(
        "div",
        { className: "group-lanes" },
        ...members.map((member) =>
          group.cancelled.includes(member.stepId) ? cancelled(stepBox(member, view, callsByKey)) : stepBox(member, view, callsByKey),
        ),
      ),
    ),
    "group-" + group.groupId,
  );
}

const cancelled = (box: HTMLElement): HTMLElement => {
  box.classList.add("cancelled");
  return box;
};

// One bar: spent against its limit; over 80 % is a warning, over the limit an error.
function budgetBar(
  testId: string,
  label: string,
  spent: number,
  limit: number | undefined,
  format: (value: number) => string,
): HTMLElement {
  // A limit of 0 (a run allowed no spend) is a limit: anything spent is over it.
  const share = limit === undefined ? 0 : limit === 0 ? (spent > 0 ? 1 : 0) : Math.min(spent / limit, 1);
  const over = limit !== undefined && spent > limit;
  const fill = el("div", {
    className: "fill" + (over ? " over" : share > 0.8 ? " near" : ""),
    style: "width: " + (share * 100).toFixed(1) + "%",
  });
  return testid(
    el(
      "div",
      { className: "budget" },
      el("span", {
        className: "budget-label",
        textContent: label + ": " + format(spent) + " of " + (limit === undefined ? "?" : format(limit)),
      }),
      el("div", { className: "bar" }, fill),
    ),
    testId,
  );
}

function usageLines(title: string, rows: UsageLine[]): Child {
  if (!rows.length) return "";
  const cell = (text: string) => el("td", { textContent: text });
  return el(
    "table",
    { className: "usage-table" },
    el(
      "tr",
      {},
      el("th", { textContent: title }),
      el("th", { textContent: "calls" }),
      el("th", { textContent: "input" }),
      el("th", { textContent: "output" }),
      el("th", { textContent: "cost" }),
    ),
    ...rows.map((row) =>
      testid(
        el(
          "tr",
          {},
          cell(row.name),
          cell(String(row.modelCalls)),
          cell(String(row.usage.inputTokens)),
          cell(String(row.usage.outputTokens)),
          cell("$" + row.usage.costUsd.toFixed(4)),
        ),
        "usage-" + row.name,
      ),
    ),
  );
}

export function usagePanel(usage: UsageView): HTMLElement {
  const { total, budget, spent } = usage;
  return panel(
    "run-usage",
    "Usage and cost",
    budgetBar("budget-tokens", "tokens", spent ? spent.tokens : total.inputTokens + total.outputTokens, budget?.maxTokens, (n) =>
      String(n),
    ),
    budgetBar("budget-cost", "cost", spent ? spent.costUsd : total.costUsd, budget?.maxCostUsd, (n) => "$" + n.toFixed(4)),
    budgetBar("budget-steps", "steps", spent ? spent.steps : 0, budget?.maxSteps, (n) => String(n)),
    usage.unpriced.length
      ? el("p", {
          className: "error",
          textContent: "price unknown for " + usage.unpriced.join("; ") + ": the cost budget cannot see their calls",
        })
      : "",
    usageLines("step", usage.byStep),
    usageLines("role", usage.byRole),
  );
}

function verdictItem(verdict: VerdictView): HTMLElement {
  const subject =
    verdict.subject === "final_answer" ? "final answer" : verdict.stepId + (verdict.attempt ? " attempt " + verdict.attempt : "");
  return testid(
    el(
      "li",
      { className: "verdict " + verdict.decision },
      el("b", { textContent: subject + ": " + verdict.decision }),
      " " + verdict.reasons.join("; "),
      verdict.feedback ? el("div", { className: "muted", textContent: "feedback: " + verdict.feedback }) : "",
      verdict.checks.length
        ? el(
            "ul",
            {},
            ...verdict.checks.map((check) =>
              el("li", {
                className: check.passed ? "check passed" : "check failed",
                textContent: (check.passed ? "✓ " : "✗ ") + check.check + ": " + check.detail,
              }),
            ),
          )
        : "",
    ),
    "verdict",
  );
}

export function verdictsPanel(verdicts: VerdictView[]): HTMLElement {
  return panel(
    "run-verdicts",
    "Verdicts",
    verdicts.length ? el("ul", {}, ...verdicts.map(verdictItem)) : el("p", { className: "muted", textContent: "No verdict yet." }),
  );
}

function evidenceLink(evidence: EvidenceLink): HTMLElement {
  const callKey = evidence.callKey;
  if (!callKey) return el("span", { className: "evidence muted", textContent: "[" + evidence.id + "]" });
  const open = (event: MouseEvent) => {
    event.preventDefault();
    openCall(callKey);
  };
  return testid(
    el("a", {
      className: "evidence" + (evidence.failed ? " failed" : ""),
      href: "#" + callAnchor(callKey),
      textContent: "[" + evidence.tool + " " + evidence.id + "]",
      onclick: open,
    }),
    "evidence-link",
  );
}

function claimItem(claim: ClaimView): HTMLElement {
  const links = claim.evidence.length
    ? claim.evidence.map(evidenceLink)
    : [el("span", { className: "error", textContent: "[no evidence]" })];
  return testid(
    el(
      "li",
      { className: "claim " + claim.status },
      el("span", { className: "claim-status", textContent: claim.status }),
      " " + claim.text + " ",
      ...links,
    ),
    "claim",
  );
}

export function answerPanel(answer: AnswerView | null): HTMLElement {
  if (!answer) return panel("run-answer", "Answer", el("p", { className: "muted", textContent: "No answer yet." }));
  return panel(
    "run-answer",
    "Answer" + (answer.partial ? " (partial)" : ""),
    testid(el("p", { className: "answer-text", textContent: answer.text || answer.summary }), "answer-text"),
    el("ul", {}, ...answer.claims.map(claimItem)),
    answer.gaps.length
      ? testid(
          el(
            "ul",
            { className: "gaps" },
            ...answer.gaps.map((gap) => testid(el("li", { className: "gap", textContent: "gap: " + gap }), "gap")),
          ),
          "answer-gaps",
        )
      : "",
    answer.missing.length
      ? el(
          "ul",
          { className: "gaps" },
          ...answer.missing.map((missing) => el("li", { className: "gap", textContent: "missing: " + missing })),
        )
      : "",
  );
}
