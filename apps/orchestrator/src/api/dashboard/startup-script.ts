/** What the page does once every view is defined: list the runs, keep the list fresh, open a linked run. */
export const STARTUP_SCRIPT = `
loadRuns();
setInterval(loadRuns, 5000);
// A link to a run (#run_…) opens it.
if (location.hash.length > 1) showRun(location.hash.slice(1));
`;
