/**
 * The views the header links to (runs, approvals, escalations, queues),
 * which one is shown, the counts on the links, and who the token is and
 * what its role may do (`may`): views leave out the buttons it may not
 * use. The server refuses them anyway; the page only does not offer them.
 * A view is named in the URL fragment (`#approvals`), a run by its id.
 */
export const NAVIGATION_SCRIPT = `
let currentView = "run";
let identity = null;
let role = null;
const ROLE_RANK = { viewer: 0, operator: 1, admin: 2 };
// Until the token's role is known, nothing is left out.
const may = (needed) => role === null || ROLE_RANK[role] >= ROLE_RANK[needed];
// Views that offer actions wait for this before they draw.
let roleKnown = Promise.resolve();
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

function whoAmI() {
  const shown = document.getElementById("identity");
  roleKnown = (async () => {
    if (!tokenInput.value) { identity = null; role = null; shown.textContent = ""; return; }
    try {
      const me = await api("/identity");
      identity = me.identity; role = me.role || null;
      shown.textContent = "as " + identity + (role ? " (" + role + ")" : "");
    } catch (error) { identity = null; role = null; shown.textContent = ""; showProblem(error); }
  })();
  return roleKnown;
}

for (const view of Object.keys(VIEWS)) document.getElementById("nav-" + view).onclick = (event) => { if (event && event.preventDefault) event.preventDefault(); VIEWS[view](); };
`;
