import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Goal, type GoalInput } from "@rein/contracts";
import type { RunState, TraceEvent } from "@rein/contracts/run";
import type { ModelScriptInput } from "@rein/models";
import { harnessesPerTest } from "./support/harnesses-per-test.ts";

/**
 * Issue 28 case 8: what a goal asks for is said once, at submit or by the
 * plan that starts the work, never read off its punctuation. A change needs
 * a supported claim to end done; only a question may be answered by a gap;
 * a text goal ends done citing the step output that wrote it.
 */
const harnesses = harnessesPerTest();
const settled = (state: RunState) => ["done", "failed", "escalated"].includes(state.status);

async function run(goal: GoalInput, script: ModelScriptInput): Promise<{ state: RunState; trace: TraceEvent[] }> {
  const harness = await harnesses.start(script);
  const seed = join(harness.runtime.config.workspaceRoot, "seed");
  await mkdir(join(seed, "logs"), { recursive: true });
  await writeFile(join(seed, "logs/service.log"), "restarted: out of memory\n");
  const runId = await harness.submit(goal, { workspaceDir: seed });
  const state = await harness.waitFor(runId, settled);
  return { state, trace: await harness.runtime.trace.read(runId) };
}

const CRASH = "Fix the crash reported at https://example.test/issue?id=1";
const gapOnly = { answer: "The crash could not be reproduced.", claims: [], gaps: ["no crash was observed"] };
const readLog = {
  title: "Read the service log",
  objective: "Read logs/service.log with read_file and report why the service restarted.",
  tools: ["read_file"],
};
const readWorker: ModelScriptInput["worker"] = [
  {
    match: "Task: Read the service log",
    turns: [
      { toolCalls: [{ name: "read_file", input: { path: "logs/service.log" } }] },
      { text: "The log says it restarted: out of memory." },
    ],
  },
];

describe("what a goal is, said once (issue 28 case 8)", () => {
  it("a change whose first plan proposes done with no claim and one gap does not end done, the URL's ? notwithstanding", async () => {
    const { state, trace } = await run(
      { text: CRASH, tools: [{ name: "read_file" }] },
      { planner: [{ turns: [{ output: { current_step: null, done: true, answer: gapOnly } }], repeatLast: true }] },
    );
    expect(state.status).toBe("escalated");
    expect(trace.some((event) => event.kind === "run.done")).toBe(false);
    expect(state.stopReason).toContain("the goal asks for a change");
  });

  it("a planner cannot make that change a question with the same plan that ends it", async () => {
    const { state, trace } = await run(
      { text: CRASH, tools: [{ name: "read_file" }] },
      { planner: [{ turns: [{ output: { current_step: null, done: true, goal_kind: "question", answer: gapOnly } }], repeatLast: true }] },
    );
    expect(state.status).not.toBe("done");
    expect(trace.some((event) => event.kind === "run.done")).toBe(false);
    expect(state.goal.kind).toBeUndefined();
    expect(state.stopReason).toContain("goal_kind is said with the plan that starts the work");
  });

  it("a question, said at submit, is answered by an explicit gap after the run looked", async () => {
    const planner: ModelScriptInput["planner"] = [
      { match: "Completed steps: none\n", turns: [{ output: { current_step: readLog, done: false } }] },
      {
        match: "Completed steps: 1\n",
        turns: [
          {
            output: {
              current_step: null,
              done: true,
              answer: { answer: "Unclear.", claims: [], gaps: ["what used the memory is not in the log"] },
            },
          },
        ],
      },
    ];
    const { state } = await run(
      { text: "Find out why the service restarted overnight", kind: "question", tools: [{ name: "read_file" }] },
      { planner, worker: readWorker },
    );
    expect(state.status).toBe("done");
    expect(state.result?.answer?.gaps).toEqual(["what used the memory is not in the log"]);
  });

  it("a question, said by the plan that starts the work, answers with a claim citing what the run observed", async () => {
    const planner: ModelScriptInput["planner"] = [
      { match: "Goal kind: not given", turns: [{ output: { current_step: readLog, done: false, goal_kind: "question" } }] },
      {
        match: "Goal kind: question",
        turns: [
          {
            output: {
              current_step: null,
              done: true,
              answer: {
                answer: "It ran out of memory.",
                claims: [{ text: "the log says out of memory", evidence: ["{{evidence:read_file}}"] }],
                gaps: [],
              },
            },
          },
        ],
      },
    ];
    const { state, trace } = await run(
      { text: "Find out why the service restarted overnight", tools: [{ name: "read_file" }] },
      { planner, worker: readWorker },
    );
    expect(state.status).toBe("done");
    expect(state.goal.kind).toBe("question");
    expect(trace.filter((event) => event.kind === "plan.ready").map((event) => event.payload.goalKind)).toEqual(["question", "question"]);
  });

  const haiku = {
    title: "Write the haiku",
    objective: "Write a haiku about Redis as the step's output.",
    tools: [],
  };
  const haikuWorker: ModelScriptInput["worker"] = [
    { match: "Task: Write the haiku", turns: [{ text: "Keys in memory / a single thread hums along / data, swift as breath" }] },
  ];
  const citingOutput = {
    answer: "Keys in memory / a single thread hums along / data, swift as breath",
    claims: [{ text: "the haiku was written", evidence: ["{{evidence:step_output}}"] }],
    gaps: [],
  };

  it("a text goal ends done citing the step output that wrote it", async () => {
    const planner: ModelScriptInput["planner"] = [
      { match: "Completed steps: none\n", turns: [{ output: { current_step: haiku, done: false, goal_kind: "text" } }] },
      { match: "Completed steps: 1\n", turns: [{ output: { current_step: null, done: true, answer: citingOutput } }] },
    ];
    const { state } = await run({ text: "Write a haiku about Redis" }, { planner, worker: haikuWorker });
    expect(state.status).toBe("done");
    expect(state.result?.claims.map((claim) => [claim.evidence[0]?.startsWith("out_s1_"), claim.status])).toEqual([[true, "supported"]]);
    expect(state.result?.answer?.gaps).toEqual([]);
  });

  it("a step's output is never evidence of a change: the same citation for a change goal does not end done", async () => {
    const planner: ModelScriptInput["planner"] = [
      { match: "Completed steps: none\n", turns: [{ output: { current_step: haiku, done: false } }] },
      { match: "Completed steps: 1\n", turns: [{ output: { current_step: null, done: true, answer: citingOutput } }], repeatLast: true },
    ];
    const { state } = await run({ text: "Write a haiku about Redis", kind: "change" }, { planner, worker: haikuWorker });
    expect(state.status).toBe("escalated");
    expect(state.stopReason).toContain("a step's output is not one");
  });

  it("an unknown kind at submit is refused with what is expected", () => {
    const parsed = Goal.safeParse({ text: "Write a haiku about Redis", kind: "poem" });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toMatch(/question.*change.*text/);
  });
});
