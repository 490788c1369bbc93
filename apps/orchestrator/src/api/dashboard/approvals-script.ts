/** The approval form: approve or deny a pending approval in the page, with the approver's name and a note. */
export const APPROVALS_SCRIPT = `
// Approve or deny in the page: the approver's name (kept for the tab) and a note, which a denial needs as its reason.
function approvalView(approval, runId) {
  const approver = el("input", { placeholder: "your name", value: sessionStorage.getItem("rein-approver") || "" });
  const note = el("input", { placeholder: "note (a denial must say why)", size: 40 });
  const problem = el("span", { className: "error" });
  const decide = async (verb) => {
    if (!approver.value) { problem.textContent = "Say who decides: your name is recorded with the decision."; return; }
    if (verb === "deny" && !note.value) { problem.textContent = "A denial must say why: write it in the note."; return; }
    sessionStorage.setItem("rein-approver", approver.value);
    const body = verb === "deny" ? { approver: approver.value, reason: note.value } : { approver: approver.value, note: note.value || undefined };
    try { await api("/approvals/" + approval.approvalId + "/" + verb, { method: "POST", body: JSON.stringify(body) }); showRun(runId); } catch (error) { problem.textContent = error.message; }
  };
  return el("div", { className: "approval" }, "Approval " + approval.approvalId + ": " + approval.tool + " " + JSON.stringify(approval.args) + " ", el("br"),
    approver, " ", note, " ",
    el("button", { textContent: "Approve", onclick: () => decide("approve") }),
    el("button", { textContent: "Deny", onclick: () => decide("deny") }), " ", problem);
}
`;
