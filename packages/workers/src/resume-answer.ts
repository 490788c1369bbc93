import type { ResumeInput } from "@rein/contracts";
import type { ToolCallStatus } from "@rein/contracts/calls";
import type { Redactor } from "@rein/guard";
import { presentEvidence, presentUntrusted } from "@rein/presenter";
import type { ModelToolCall } from "@rein/tools";
import { DELEGATE, REQUEST_CONTEXT } from "./runtime-tools.ts";

// A child's summary, the planner's reason and the evidence it passes answer the call the step waited on: more of each is shown than in a prompt's lists.
const SUMMARY_BYTES = 2_000;

/** A resume's answer alone: which call it answers was settled before (see answer-calls). */
type ResumeAnswer = ResumeInput extends infer Each ? (Each extends unknown ? Omit<Each, "callIndex"> : never) : never;

/**
 * The tool result a resumed step gets for the runtime call it suspended on:
 * its child's result as one observation, or the planner's answer. The
 * controller put it in the signed packet; nothing else can supply it. The
 * child's summary and the evidence summaries were written by a model that
 * read tool output, and the planner's refusal by a model too: they are
 * presented as outside text, the runtime's framing around them is not.
 */
export function answerFromResume(
  call: ModelToolCall,
  resume: ResumeAnswer | undefined,
  redactor?: Redactor,
): { content: string; status: ToolCallStatus } | undefined {
  if (call.name === DELEGATE && resume?.kind === "delegation") {
    if (resume.refusal) return { content: `delegation refused by the runtime: ${resume.refusal}`, status: "refused" };
    // Stopped by the join rule the step asked for (or because a sibling failed it): nothing for this call to follow up.
    if (resume.status === "cancelled") {
      return { content: `child step ${resume.childStepId} was cancelled: its group joined without it`, status: "ok" };
    }
    const evidence = resume.observationIds.length > 0 ? `\nits observations: ${resume.observationIds.join(", ")}` : "";
    const summary = presentUntrusted(resume.summary, {
      source: `Summary written by child step ${resume.childStepId}`,
      redactor,
      maxBytes: SUMMARY_BYTES,
    });
    return {
      content: `child step ${resume.childStepId} ended ${resume.status}.${evidence}\n${summary.text}`,
      status: resume.status === "completed" ? "ok" : "error",
    };
  }
  if (call.name === REQUEST_CONTEXT && resume?.kind === "context") {
    if (resume.refusal) {
      return {
        content: `the planner refused.\n${presentUntrusted(resume.refusal, { source: "The planner's reason", redactor, maxBytes: SUMMARY_BYTES }).text}`,
        status: "denied",
      };
    }
    if (resume.evidence.length === 0) return { content: "the planner had no evidence to pass", status: "ok" };
    return {
      content: `evidence passed to you:\n${presentEvidence(resume.evidence, { source: "Evidence (id: summary)", redactor, maxBytes: SUMMARY_BYTES })}`,
      status: "ok",
    };
  }
  return undefined;
}
