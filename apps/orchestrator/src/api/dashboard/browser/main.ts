import { keepToken, takeToken, tokenInput } from "./api.ts";
import { showApprovals } from "./approvals.ts";
import { byId } from "./dom.ts";
import { showEscalations } from "./escalation-reply.ts";
import { whoAmI } from "./identity.ts";
import { showProblem } from "./problem.ts";
import { showQueues, stopQueuesRefresh } from "./queues.ts";
import { showRunPage, stopFollowingRun } from "./run-page.ts";
import { followRuns, loadRuns, renderRuns, tickDurations } from "./runs-list.ts";
import { setRunPage, showRun, whenEntering } from "./views.ts";

/**
 * The page's startup, the bundle's entry: take the token, wire the header,
 * say who the token is, follow the run list live, tick durations, and open
 * what the URL names (`#approvals`, `#escalations`, `#queues`, or a run id).
 */

/** The views the header links to, by the name the URL fragment gives them. */
const VIEWS = new Map<string, () => Promise<void>>([
  ["approvals", showApprovals],
  ["escalations", showEscalations],
  ["queues", showQueues],
]);

takeToken();
tokenInput.addEventListener("change", () => {
  keepToken();
  loadRuns();
});
for (const [name, show] of VIEWS) {
  byId("nav-" + name).onclick = (event) => {
    event.preventDefault();
    show();
  };
}
// Leaving a view stops what it keeps doing.
whenEntering(stopQueuesRefresh);
whenEntering((name) => {
  if (name !== "run") stopFollowingRun();
});
setRunPage(showRunPage);
tokenInput.addEventListener("change", () => {
  whoAmI();
  followRuns();
});
renderRuns();
whoAmI();
followRuns();
setInterval(tickDurations, 1000);
const named = location.hash.slice(1);
const view = VIEWS.get(named);
if (view) view();
else if (named.length > 0) showRun(named);
else if (!tokenInput.value) showProblem(new Error("no token"));
