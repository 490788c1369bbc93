/**
 * What the page does once every view is defined: say who the token is,
 * follow the run list live, tick durations, and open what the URL names
 * (`#approvals`, `#escalations`, `#queues`, or a run id).
 */
export const STARTUP_SCRIPT = `
// Every way into a run's page leaves the other views first.
const showRunPage = showRun;
showRun = (runId) => { enterView("run"); return showRunPage(runId); };
tokenInput.addEventListener("change", () => { whoAmI(); followRuns(); });
renderRuns();
whoAmI();
followRuns();
setInterval(tickDurations, 1000);
const named = location.hash.slice(1);
if (VIEWS[named]) VIEWS[named]();
else if (named.length > 0) showRun(named);
else if (!tokenInput.value) showProblem(new Error("no token"));
`;
