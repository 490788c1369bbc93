/** The day the catalogue's facts (ids, limits, prices, retirement dates) were last read from the providers' pages. */
export const CATALOGUE_READ_ON = "2026-12-03";

/**
 * The model Rein picks for every role when an API key is all it is given.
 * Both are their provider's balanced tier at $2 / $10 per million tokens,
 * what a planner, worker and judge making many calls a run can afford:
 * claude-sonnet-5-5, "the best combination of speed and intelligence"
 * (platform.claude.com models overview; Opus 5.5, the page's start-here
 * model, costs twice as much), and gpt-6.2-sol, "our go-to model for
 * everyday work, from coding to powering agents at scale" (its model page,
 * released 2026-11-17; gpt-6-sol is the older Sol).
 */
const recommended = { anthropic: "claude-sonnet-5-5", openai: "gpt-6.2-sol" } as const;

/** The catalogue's recommended model for `kind`; undefined for kinds whose models only the operator knows. */
export function recommendedModelFor(kind: keyof typeof recommended): string;
export function recommendedModelFor(kind: string): string | undefined;
export function recommendedModelFor(kind: string): string | undefined {
  return kind === "anthropic" || kind === "openai" ? recommended[kind] : undefined;
}
