import { describe, expect, it } from "vitest";
import type { PacketBody } from "@rein/contracts";
import { Redactor } from "@rein/guard";
import type { ModelToolCall } from "@rein/tools";
import { INJECTIONS, SECRET, secretLeaks } from "@rein/presenter/testing";
import { answerFromResume } from "../src/resume-answer.ts";
import { DELEGATE, REQUEST_CONTEXT } from "../src/runtime-tools.ts";
import { renderTask } from "../src/worker-prompt.ts";

const redactor = new Redactor({ secrets: [SECRET] });
const FENCE = /<<<untrusted-data ([a-p]{16})>>>[\s\S]*?<<<end-untrusted-data \1>>>/g;
const hostile = (where: string) => `canary-${where} ${INJECTIONS.join(" ")} ${SECRET}`;
const call = (name: string): ModelToolCall => ({ type: "tool_call", id: "call_1", name, input: {} });

describe("the worker's prompts", () => {
  it("show handed evidence, lessons and the evaluator's feedback only fenced and redacted", () => {
    // Only what renderTask reads; the rest of a packet (signature bounds, surface) plays no part in the text.
    const body = {
      task: {
        title: "Read the notes",
        objective: "Read notes/incident.txt and report.",
        acceptanceCriteria: [],
        outputContract: { format: "text", description: "a report" },
        feedback: hostile("feedback"),
      },
      evidence: [{ id: "obs_1", summary: `read_file: ${hostile("evidence")}` }],
      lessons: [{ id: "lesson_1", text: hostile("lesson") }],
      budget: { maxTurns: 5, maxToolCalls: 5 },
    } as unknown as PacketBody;
    const text = renderTask(body, { redactor });
    for (const where of ["feedback", "evidence", "lesson"]) expect(text).toContain(`canary-${where}`);
    expect(text.replace(FENCE, "")).not.toContain("canary-");
    expect(text.startsWith("Task: Read the notes\nObjective: Read notes/incident.txt and report.")).toBe(true);
    expect(secretLeaks(text)).toEqual([]);
  });

  it("shows a child's summary and the planner's answer or refusal only fenced and redacted", () => {
    const answers = [
      answerFromResume(
        call(DELEGATE),
        { kind: "delegation", childStepId: "s1.1", status: "completed", summary: hostile("child"), observationIds: ["obs_2"] },
        redactor,
      ),
      answerFromResume(call(REQUEST_CONTEXT), { kind: "context", evidence: [{ id: "obs_1", summary: hostile("context") }] }, redactor),
      answerFromResume(call(REQUEST_CONTEXT), { kind: "context", evidence: [], refusal: hostile("refusal") }, redactor),
    ];
    for (const [index, where] of ["child", "context", "refusal"].entries()) {
      const content = answers[index]?.content ?? "";
      expect(content).toContain(`canary-${where}`);
      expect(content.replace(FENCE, "")).not.toContain("canary-");
      expect(secretLeaks(content)).toEqual([]);
    }
  });
});
