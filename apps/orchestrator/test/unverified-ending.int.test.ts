import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RunState } from "@rein/contracts/run";
import type { ModelScriptInput } from "@rein/models";
import { harnessesPerTest } from "./support/harnesses-per-test.ts";

/**
 * A planner that tries to end a run on an answer nothing backs. Whatever it
 * says, the run may end `done` only on the evaluator's verdict, and that
 * verdict never passes an answer with no supported claim.
 */
const readStep = {
  current_step: {
    title: "Read the service config",
    objective: "Read config/service.txt and config/missing.txt with read_file and report what they say.",
    tools: ["read_file"],
    output_contract: { description: "one line", format: "text" },
  },
  done: false,
};

const worker: ModelScriptInput["worker"] = [
  {
    match: "Task: Read the service config",
    turns: [
      { toolCalls: [{ name: "read_file", input: { path: "config/service.txt" } }] },
      // The failed read comes last, so the planner's {{evidence:read_file}} names it.
      { toolCalls: [{ name: "read_file", input: { path: "config/missing.txt" } }] },
      {
        text: "service.txt says replicas=3. The read_file of config/missing.txt failed because that file does not exist; it is not needed since service.txt holds the setting.",
      },
    ],
  },
];

const harnesses = harnessesPerTest();

async function run(script: ModelScriptInput): Promise<{ state: RunState; kinds: string[] }> {
  const harness = await harnesses.start(script);
  const seed = join(harness.runtime.config.workspaceRoot, "seed");
  await mkdir(join(seed, "config"), { recursive: true });
  await writeFile(join(seed, "config/service.txt"), "replicas=3\n");
  const runId = await harness.submit(
    { text: "Set out the service's replica count", tools: [{ name: "read_file" }] },
    { workspaceDir: seed },
  );
  const state = await harness.waitFor(runId, (candidate) => ["done", "failed", "cancelled", "escalated"].includes(candidate.status));
  const kinds = (await harness.runtime.trace.read(runId)).map((event) => event.kind);
  return { state, kinds };
}

describe("a planner cannot end a run on an unverified answer", () => {
  it("an answer resting only on a failed call is sent back once, then escalated, never done", async () => {
    const unfounded = {
      current_step: null,
      done: true,
      answer: {
        answer: "replicas are 5",
        claims: [{ text: "missing.txt sets replicas=5", evidence: ["{{evidence:read_file}}"] }],
        gaps: [],
      },
    };
    const { state, kinds } = await run({
      planner: [
        { match: "Completed steps: 1", turns: [{ output: unfounded }], repeatLast: true },
        { match: "Completed steps: none", turns: [{ output: readStep }] },
      ],
      worker,
    });
    expect(state.status).toBe("escalated");
    expect(state.stopReason).toMatch(/no claim backed by an observation/);
    expect(kinds.filter((kind) => kind === "answer.proposed")).toHaveLength(2);
    expect(kinds).not.toContain("run.done");
    const finalVerdicts = state.verdicts.filter((verdict) => verdict.stepId === "final");
    expect(finalVerdicts.map((verdict) => verdict.decision)).toEqual(["retry", "escalate"]);
    expect(finalVerdicts[0]?.reasons.join(" ")).toContain("claim contradicted: missing.txt sets replicas=5");
  });

  it("an answer with no claims and no gaps never reaches done", async () => {
    const bare = { current_step: null, done: true, answer: { answer: "It was a cosmic ray.", claims: [], gaps: [] } };
    const { state, kinds } = await run({
      planner: [
        { match: "Completed steps: 1", turns: [{ output: bare }], repeatLast: true },
        { match: "Completed steps: none", turns: [{ output: readStep }] },
      ],
      worker,
    });
    expect(state.status).not.toBe("done");
    expect(kinds).not.toContain("run.done");
  });
});
