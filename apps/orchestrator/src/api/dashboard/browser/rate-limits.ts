import type { QueueOverview } from "./api-types.ts";
import { el, testid } from "./dom.ts";
import { ms } from "./format.ts";

type RateBudget = QueueOverview["rateLimits"][number];
type Dimension = keyof RateBudget["learned"];

const count = (value: number): string => Math.round(value).toLocaleString("en-US");

/** One dimension: used of the limit the fleet applies (the lower of configured and learned), and where each came from. */
function dimensionText(budget: RateBudget, dimension: Dimension, configured: number | undefined): string {
  const learned = budget.learned[dimension]?.limit;
  const available = budget.available[dimension];
  if (configured === undefined && learned === undefined) return "not limited";
  const limit = Math.min(configured ?? Number.POSITIVE_INFINITY, learned ?? Number.POSITIVE_INFINITY);
  const used = available === undefined ? "?" : count(Math.max(0, limit - available));
  const source =
    configured !== undefined && learned !== undefined
      ? `configured ${count(configured)}, learned ${count(learned)}`
      : configured !== undefined
        ? "configured"
        : "learned";
  return `${used} of ${count(limit)}/min (${source})`;
}

/**
 * The fleet's rate budget per limited provider and model (from GET /queues):
 * requests and tokens used of the limit, calls in flight, waits and 429s.
 */
export function rateLimitsSection(budgets: RateBudget[]): HTMLElement[] {
  const heading = el("h2", { textContent: "Provider rate limits (" + budgets.length + ")" });
  if (budgets.length === 0)
    return [
      heading,
      testid(el("p", { className: "muted", textContent: "No provider is rate-limited by the fleet." }), "rate-limits-empty"),
    ];
  const cell = (text: string | number, id: string) => testid(el("td", { textContent: String(text) }), id);
  const rows = budgets.map((budget) => {
    const paused = budget.pausedUntil ? " (paused " + ms(Math.max(0, budget.pausedUntil - Date.now())) + ")" : "";
    const row = el(
      "tr",
      {},
      cell(budget.provider + "/" + budget.model, "rate-limit-scope"),
      cell(dimensionText(budget, "requests", budget.configured.requestsPerMinute), "rate-limit-requests"),
      cell(dimensionText(budget, "inputTokens", budget.configured.inputTokensPerMinute), "rate-limit-input-tokens"),
      cell(dimensionText(budget, "outputTokens", budget.configured.outputTokensPerMinute), "rate-limit-output-tokens"),
      cell(dimensionText(budget, "tokens", budget.configured.tokensPerMinute), "rate-limit-tokens"),
      cell(
        budget.configured.maxInFlight === undefined ? String(budget.inFlight) : budget.inFlight + " of " + budget.configured.maxInFlight,
        "rate-limit-in-flight",
      ),
      cell(budget.waiting, "rate-limit-waiting"),
      cell(budget.waits + " (" + (ms(budget.waitedMs) || "0 ms") + ")", "rate-limit-waits"),
      cell(budget.rateLimited + paused, "rate-limit-429s"),
    );
    row.dataset.scope = budget.provider + "/" + budget.model;
    return testid(row, "rate-limit-row");
  });
  const names = ["model", "requests", "input tokens", "output tokens", "tokens", "in flight", "waiting now", "waits (time)", "429s"];
  return [
    heading,
    testid(
      el(
        "table",
        { id: "rate-limit-table", className: "grid" },
        el("thead", {}, el("tr", {}, ...names.map((name) => el("th", { textContent: name })))),
        el("tbody", {}, ...rows),
      ),
      "rate-limit-table",
    ),
  ];
}
