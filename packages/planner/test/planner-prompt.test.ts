import { describe, expect, it } from "vitest";
import type { ContextJob, PlannerContext } from "@rein/contracts/messages";
import { Redactor } from "@rein/guard";
import { INJECTIONS, SECRET, secretLeaks } from "@rein/presenter/testing";
import { renderContextRequest } from "../src/context-answer.ts";
import { renderPlannerContext } from "../src/planner-prompt.ts";

const redactor = new Redactor({ secrets: [SECRET] });
const FENCE = /<<<untrusted-data ([a-p]{16})>>>[\s\S]*?<<<end-untrusted-data \1>>>/g;
// Every outside field carries the whole corpus, the secret and a marker of where it came from.
const hostile = (where: string) => `canary-${where} ${INJECTIONS.join(" ")} ${SECRET}`;

describe("the planner's prompts", () => {
  it("show step summaries, evidence, lessons and the verdict's reasons only fenced and redacted", () => {
    const context: PlannerContext = {
      goal: "Why does payment-api fail?",
      grantedTools: ["read_file"],
      completedSteps: [{ stepId: "s1", title: "Read the notes", decision: "replan", summary: hostile("summary") }],
      evidence: [{ id: "obs_1", summary: `read_file: ${hostile("evidence")}` }],
      knownEvidenceIds: ["obs_1"],
      lastVerdict: { decision: "replan", reasons: [hostile("reason")], feedback: hostile("feedback") },
      lessons: [{ id: "lesson_1", text: hostile("lesson") }],
      instruction: "look at the pool first",
    };
    const text = renderPlannerContext(context, { redactor });
    for (const where of ["summary", "evidence", "reason", "feedback", "lesson"]) expect(text).toContain(`canary-${where}`);
    const outside = text.replace(FENCE, "");
    expect(outside).not.toContain("canary-");
    expect(outside).not.toMatch(/<<<\s*(?:end[\s_-]*)?untrusted[\s_-]*data/i);
    expect(secretLeaks(text)).toEqual([]);
    // The person's own words are not outside text.
    expect(outside).toContain("Instruction from a person: look at the pool first");
    expect(outside).toContain("Latest verdict: replan");
  });

  it("show a worker's question and the evidence summaries only fenced when it asks for context", () => {
    const job: ContextJob = {
      runId: "run_c",
      stepId: "s2",
      attempt: 1,
      resumes: 0,
      question: hostile("question"),
      goal: "Why does payment-api fail?",
      task: "Summarize the notes",
      handed: [],
      evidence: [{ id: "obs_1", summary: `read_file: ${hostile("evidence")}` }],
    };
    const text = renderContextRequest(job, redactor);
    expect(text).toContain("canary-question");
    expect(text.replace(FENCE, "")).not.toContain("canary-");
    expect(secretLeaks(text)).toEqual([]);
  });
});
