import type { StatusCounts } from "./api-types.ts";
import { byId } from "./dom.ts";

/**
 * Which view is shown: the run page, or one the header links to
 * (approvals, escalations, queues), named in the URL fragment (`#approvals`;
 * a run by its id); and the counts on those links.
 */

export type ViewName = "run" | "approvals" | "escalations" | "queues";

const LINKED = ["approvals", "escalations", "queues"] as const;

/** The view on screen: a view that draws after a request checks it is still the one shown. */
export let currentView: ViewName = "run";

const onEnter: ((name: ViewName) => void)[] = [];
let runPage: (runId: string) => Promise<void> = async () => {};

/** Registers what entering a view stops (the queues' refresh, a run's event follow). */
export function whenEntering(listener: (name: ViewName) => void): void {
  onEnter.push(listener);
}

/** Leaving a view stops what it keeps doing; the fragment names the new view and its link is marked. */
export function enterView(name: ViewName): void {
  currentView = name;
  for (const listener of onEnter) listener(name);
  if (name !== "run") history.replaceState(null, "", "#" + name);
  for (const view of LINKED) byId("nav-" + view).classList.toggle("active", view === name);
}

/**
 * Opens a run's page; every way into it leaves the other views first. The
 * run page is set once at startup (main.ts), so that the views linking to a
 * run need not import the page that shows them.
 */
export function showRun(runId: string): Promise<void> {
  enterView("run");
  return runPage(runId);
}

export function setRunPage(show: (runId: string) => Promise<void>): void {
  runPage = show;
}

export function updateNavCounts(counts: StatusCounts): void {
  byId("nav-approvals").textContent = "Approvals (" + counts.byStatus.waiting_approval + ")";
  byId("nav-escalations").textContent = "Escalations (" + counts.byStatus.escalated + ")";
}
