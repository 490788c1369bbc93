/** The reply form: answer an escalated run from the page, as `rein reply` does. */
export const ESCALATION_REPLY_SCRIPT = `
// An escalated run waits for a person's instruction; this sends it as rein reply does.
function replyView(runId) {
  const instruction = el("input", { placeholder: "instruction for the run", size: 60 });
  const problem = el("span", { className: "error" });
  const send = async () => {
    try { await api("/runs/" + runId + "/reply", { method: "POST", body: JSON.stringify({ instruction: instruction.value }) }); showRun(runId); } catch (error) { problem.textContent = error.message; }
  };
  return el("div", { className: "approval" }, "The run escalated and waits for your answer: ", instruction, " ", el("button", { textContent: "Reply", onclick: send }), " ", problem);
}
`;
