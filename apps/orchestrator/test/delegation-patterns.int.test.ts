import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type ModelScriptInput, textOf } from "@rein/models";
import { harnessesPerTest } from "./support/harnesses-per-test.ts";

const harnesses = harnessesPerTest();

const step = (title: string, objective: string, tools: string[]) => ({
  current_step: { title, objective, tools, output_contract: { description: "a short summary", format: "text" } },
  next_steps: [],
  risks: [],
  done: false,
});

/**
 * A parent step granted `read_file` on `src/*` asks for a child that reads
 * `src/**`. Read as a path, the child's `src/**` matches the parent's
 * `src/*` (a `*` covers the text `**`), and the child used to get a packet
 * that read `src/deep/…`.
 */
const script: ModelScriptInput = {
  planner: [
    {
      match: "Completed steps: none",
      turns: [{ output: step("Survey src", "Find what src holds, delegating the reading", ["read_file"]) }],
    },
    {
      match: "Completed steps: 1",
      turns: [{ output: { current_step: null, done: true, answer: { answer: "stopped", claims: [], gaps: ["the child was refused"] } } }],
    },
  ],
  worker: [
    {
      match: "Task: Survey src",
      turns: [
        {
          toolCalls: [
            {
              name: "delegate",
              input: {
                reason: "reading is a separate job",
                task: {
                  title: "Read deep",
                  objective: "Read src/deep/key.ts",
                  tools: [{ name: "read_file", scope: { paths: ["src/**"] } }],
                  budget: { maxTurns: 3 },
                },
              },
            },
          ],
        },
        { text: "The child was refused." },
      ],
    },
    { match: "Task: Read deep", turns: [{ toolCalls: [{ name: "read_file", input: { path: "src/deep/key.ts" } }] }, { text: "read it" }] },
  ],
};

describe("delegation compares scopes as patterns", () => {
  it("refuses a child asking for src/** under a parent grant of src/*, and no child reads src/deep", async () => {
    const harness = await harnesses.start(script);
    const seed = join(harness.runtime.config.workspaceRoot, "seed");
    await mkdir(join(seed, "src/deep"), { recursive: true });
    await writeFile(join(seed, "src/a.ts"), "export const a = 1;\n");
    await writeFile(join(seed, "src/deep/key.ts"), "export const key = 'deep-secret';\n");
    const runId = await harness.submit(
      { text: "Tell me what src holds", tools: [{ name: "read_file", scope: { paths: ["src/*"] } }] },
      { workspaceDir: seed },
    );
    await harness.waitFor(runId, (state) => ["done", "failed", "escalated"].includes(state.status));
    const trace = await harness.runtime.trace.read(runId);

    const refused = trace.find((event) => event.kind === "delegation.refused");
    expect(refused?.payload.reason).toMatch(/attenuation broken: scope: read_file\.paths src\/\*\* is outside the parent's src\/\*/);
    expect(trace.some((event) => event.stepId === "s1.1" && event.kind === "step.dispatched")).toBe(false);
    expect(JSON.stringify(trace)).not.toContain("deep-secret");
    const childRequests = harness.worker.requests.filter((request) =>
      textOf(request.messages[0]?.content ?? []).includes("Task: Read deep"),
    );
    expect(childRequests).toHaveLength(0);
  });
});
