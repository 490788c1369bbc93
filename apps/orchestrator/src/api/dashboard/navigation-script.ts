/**
 * The views the header links to (runs, approvals, escalations, queues),
 * which one is shown, the counts on the links, and who the token is.
 * A view is named in the URL fragment (`#approvals`), a run by its id.
 */
export const NAVIGATION_SCRIPT = `
let currentView = "run";
let identity = null;
const VIEWS = { approvals: () => showApprovals(), escalations: () => showEscalations(), queues: () => showQueues() };

// Leaving a view stops what it keeps doing (the queues' refresh, a run's event follow).
function enterView(name) {
  currentView = name;
  if (queuesTimer) { clearInterval(queuesTimer); queuesTimer = null; }
  if (name !== "run" && typeof follow !== "undefined" && follow) follow.abort();
  if (name !== "run") history.replaceState(null, "", "#" + name);
  for (const view of ["approvals", "escalations", "queues"]) {
    const link = document.getElementById("nav-" + view);
    if (link.classList) link.classList.toggle("active", view === name);
  }
}

function updateNavCounts(counts) {
  document.getElementById("nav-approvals").textContent = "Approvals (" + counts.byStatus.waiting_approval + ")";
  document.getElementById("nav-escalations").textContent = "Escalations (" + counts.byStatus.escalated + ")";
}

async function whoAmI() {
  const shown = document.getElementById("identity");
  if (!tokenInput.value) { identity = null; shown.textContent = ""; return; }
  try { identity = (await api("/identity")).identity; shown.textContent = "as " + identity; } catch (error) { identity = null; shown.textContent = ""; showProblem(error); }
}

for (const view of Object.keys(VIEWS)) document.getElementById("nav-" + view).onclick = (event) => { if (event && event.preventDefault) event.preventDefault(); VIEWS[view](); };
`;
