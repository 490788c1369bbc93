import { existsSync } from "node:fs";
import { join } from "node:path";
import { PromptCopy, typedTraceEvent } from "@rein/trace";
import { createTestRuntime } from "@rein/runtime/testing";
import { describe, expect, it } from "vitest";
import { EXAMPLES_DIR } from "../../src/examples/load-example.ts";
import { loadBundle } from "../../src/trace/trace-bundle.ts";
import { renderExport } from "../../src/trace/trace-export.ts";
import { importBundle, parseExport } from "../../src/trace/trace-import.ts";
import { answerQuestions, TRACE_QUESTIONS } from "../../src/trace/trace-check.ts";
import { renderTimeline } from "../../src/trace/views/timeline-view.ts";
import { exampleRecordedOnce } from "./record-example.ts";

// sre-triage is being built alongside; it is checked the moment it exists.
const EXAMPLES = ["bugfix", "sre-triage", "sre-triage-plugin"].filter((name) => existsSync(join(EXAMPLES_DIR, name, "goal.json")));

describe.each(EXAMPLES)("the trace of examples/%s", (name) => {
  const recorded = exampleRecordedOnce(name);

  it("answers every question of issue 7 from its events", () => {
    const answers = answerQuestions(recorded.bundle.events, recorded.bundle.blobs);
    expect(answers.map((answer) => answer.question)).toEqual([...TRACE_QUESTIONS]);
    for (const answer of answers) {
      expect(answer.gaps, answer.question).toEqual([]);
      expect(answer.answered, answer.question).toBe(true);
    }
    const kinds = new Set(recorded.bundle.events.map((event) => event.kind));
    for (const kind of [
      "run.submitted",
      "plan.ready",
      "step.dispatched",
      "model.called",
      "model.responded",
      "tool.called",
      "permission.decided",
      "tool.result",
      "observation.made",
      "verdict.ready",
    ]) {
      expect(kinds, kind).toContain(kind);
    }
    expect(renderTimeline(recorded.bundle.events, recorded.bundle.state)).toContain(
      `run ${recorded.bundle.runId}: ${recorded.bundle.state?.status}`,
    );
  });

  it("says which stored prompt part is not what its copy names it as", () => {
    const called = recorded.bundle.events.find((event) => event.kind === "model.called");
    const system = PromptCopy.parse(called?.payload.prompt).system;
    const answers = answerQuestions(recorded.bundle.events, { ...recorded.bundle.blobs, [system]: '{"not":"a system prompt"}' });
    const seen = answers.find((answer) => answer.question === "what did the model see");
    expect(seen?.answered).toBe(false);
    expect(seen?.gaps[0]).toMatch(new RegExp(`model.called: prompt blob ${system} is not the system prompt \\(a string\\)`));
  });

  it("writes only kinds of the trace catalogue, each with the payload its kind declares", () => {
    for (const event of recorded.bundle.events) expect(() => typedTraceEvent(event), `${event.seq} ${event.kind}`).not.toThrow();
  });

  it("exports to the same bytes twice, and import into another prefix exports back identically", async () => {
    const { runtime, bundle } = recorded;
    const first = renderExport(await loadBundle(runtime, bundle.runId));
    const second = renderExport(await loadBundle(runtime, bundle.runId));
    expect(second.jsonl).toBe(first.jsonl);
    expect(second.sidecar).toBe(first.sidecar);

    const other = await createTestRuntime();
    try {
      await importBundle(other, parseExport(first.jsonl, first.sidecar));
      const again = renderExport(await loadBundle(other, bundle.runId));
      expect(again.jsonl).toBe(first.jsonl);
      expect(again.sidecar).toBe(first.sidecar);
      expect((await other.runs.require(bundle.runId)).status).toBe(bundle.state?.status);
      await expect(importBundle(other, parseExport(first.jsonl, first.sidecar))).rejects.toThrow(/already/);
    } finally {
      await other.cleanup();
    }
  });
});
