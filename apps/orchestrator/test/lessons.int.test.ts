import { describe, expect, it } from "vitest";
import type { ModelScriptInput } from "@rein/models";
import { LessonStore } from "@rein/runtime";
import { defineTool, z } from "@rein/tools";
import { harnessesPerTest } from "./support/harnesses-per-test.ts";

const readCache = defineTool({
  name: "read_cache_stats",
  description: "Read the cache's hit rate. Read-only.",
  effect: "read",
  input: z.object({ region: z.string() }),
  run: async (args) => `cache ${args.region}: hit rate 93%`,
});

const plan = {
  current_step: {
    title: "Check the cache hit rate",
    objective: "Read the cache statistics with read_cache_stats and report the hit rate.",
    acceptance_criteria: [{ kind: "output_matches", description: "the report names the hit rate", pattern: "hit rate \\d+%" }],
    tools: ["read_cache_stats"],
    output_contract: { description: "the hit rate", format: "text" },
  },
  next_steps: [],
  risks: [],
  done: false,
};

const script: ModelScriptInput = {
  planner: [
    {
      match: "Completed steps: 1",
      turns: [
        {
          output: {
            current_step: null,
            done: true,
            answer: {
              answer: "hit rate 93%",
              claims: [{ text: "the hit rate is 93%", evidence: ["{{evidence:read_cache_stats}}"] }],
              gaps: [],
            },
          },
        },
      ],
    },
    { match: "Completed steps: none", turns: [{ output: plan }] },
  ],
  worker: [
    // The retry's packet carries the evaluator's feedback: this attempt reads the right region.
    {
      match: ["Check the cache hit rate", "Feedback on the previous attempt"],
      turns: [{ toolCalls: [{ name: "read_cache_stats", input: { region: "eu-west" } }] }, { text: "cache eu-west: hit rate 93%" }],
    },
    {
      match: "Check the cache hit rate",
      turns: [{ toolCalls: [{ name: "read_cache_stats", input: { region: "default" } }] }, { text: "the cache looks fine" }],
    },
  ],
};

const harnesses = harnessesPerTest();

describe("lesson memory across runs", () => {
  it("a step resolved after a retry writes a lesson; a similar goal's planner sees it and its trace names it", async () => {
    const harness = await harnesses.start(script, [readCache]);
    const first = await harness.submit({ text: "Is the checkout cache hit rate healthy?", tools: [{ name: "read_cache_stats" }] });
    const firstState = await harness.waitFor(first);
    expect(firstState.status).toBe("done");
    // The step's retry and pass, then the evaluator's verdict over the final answer.
    expect(firstState.verdicts.map((verdict) => verdict.decision)).toEqual(["retry", "continue", "done"]);

    const lessons = await new LessonStore(harness.runtime.redis, harness.runtime.keys).list();
    expect(lessons).toHaveLength(1);
    const [lesson] = lessons;
    expect(lesson).toMatchObject({ kind: "resolved_step", runId: first, stepId: "s1" });
    expect(lesson?.failed).toContain("the report names the hit rate");
    expect(lesson?.worked).toContain("hit rate 93%");
    const firstTrace = await harness.runtime.trace.read(first);
    expect(firstTrace.find((event) => event.kind === "lesson.recorded")?.payload.lessonId).toBe(lesson?.lessonId);

    const requestsBefore = harness.planner.requests.length;
    const second = await harness.submit({ text: "Is the search cache hit rate healthy?", tools: [{ name: "read_cache_stats" }] });
    await harness.waitFor(second);
    const secondPlannerRequest = harness.planner.requests
      .slice(requestsBefore)
      .find((request) => JSON.stringify(request.messages).includes("Goal: Is the search cache"));
    const shown = JSON.stringify(secondPlannerRequest?.messages);
    expect(shown).toContain("Lessons from earlier runs: each entry's text is between untrusted-data markers");
    expect(shown).toContain(`- ${lesson?.lessonId}: <<<untrusted-data `);
    const secondTrace = await harness.runtime.trace.read(second);
    expect(secondTrace.find((event) => event.kind === "lesson.used")?.payload.lessons).toEqual([lesson?.lessonId]);
    // Its own retry writes a second lesson, which its next plan retrieves too.
    expect((await harness.runtime.runs.require(second)).lessonsUsed[0]).toBe(lesson?.lessonId);
  });
});
