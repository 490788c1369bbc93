import type { ModelToolCall, ResumeInput, ToolCallStatus } from "@rein/core";
import { DELEGATE, REQUEST_CONTEXT } from "./runtime-tools.ts";

/**
 * The tool result a resumed step gets for the runtime call it suspended on:
 * its child's result as one observation, or the planner's answer. The
 * controller put it in the signed packet; nothing else can supply it.
 */
export function answerFromResume(call: ModelToolCall, resume: ResumeInput | undefined): { content: string; status: ToolCallStatus } | undefined {
  if (call.name === DELEGATE && resume?.kind === "delegation") {
    if (resume.refusal) return { content: `delegation refused by the runtime: ${resume.refusal}`, status: "refused" };
    const evidence = resume.observationIds.length > 0 ? `\nits observations: ${resume.observationIds.join(", ")}` : "";
    return { content: `child step ${resume.childStepId} ended ${resume.status}: ${resume.summary}${evidence}`, status: resume.status === "completed" ? "ok" : "error" };
  }
  if (call.name === REQUEST_CONTEXT && resume?.kind === "context") {
    if (resume.refusal) return { content: `the planner refused: ${resume.refusal}`, status: "denied" };
    const lines = resume.evidence.map((entry) => `- ${entry.id}: ${entry.summary}`);
    return { content: lines.length > 0 ? `evidence passed to you:\n${lines.join("\n")}` : "the planner had no evidence to pass", status: "ok" };
  }
  return undefined;
}
