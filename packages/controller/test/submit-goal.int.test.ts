import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ReinError } from "@rein/contracts";
import { createTestRuntime, type TestRuntime } from "@rein/runtime/testing";
import { submitGoal } from "../src/intake/submit-goal.ts";

describe("submitGoal", () => {
  let runtime: TestRuntime;
  const knownTools = ["read_file", "write_file"];

  beforeAll(async () => {
    runtime = await createTestRuntime();
  });
  afterAll(async () => {
    await runtime.cleanup();
  });

  async function rejection(goal: Parameters<typeof submitGoal>[1]): Promise<ReinError> {
    try {
      await submitGoal(runtime, goal, { knownTools });
    } catch (error) {
      if (ReinError.isInstance(error)) return error;
      throw error;
    }
    throw new Error("expected the goal to be rejected");
  }

  async function nothingWritten(): Promise<void> {
    expect(await runtime.runs.list()).toEqual([]);
    for (const queue of runtime.queues.all()) {
      const counts = await queue.getJobCounts();
      expect(Object.values(counts).reduce((sum, count) => sum + count, 0)).toBe(0);
    }
  }

  it("rejects an empty goal, saying so, and enqueues nothing", async () => {
    const error = await rejection({ text: "   " });
    expect(error.code).toBe("goal_invalid");
    expect(error.message).toMatch(/goal\.text: the goal text is empty/);
    await nothingWritten();
  });

  it("rejects a goal over the size limit, naming the limit", async () => {
    const error = await rejection({ text: "x".repeat(20_001) });
    expect(error.message).toMatch(/too long; expected at most 20000 characters/);
    await nothingWritten();
  });

  it("rejects a goal naming a tool the deployment does not know, listing the known ones", async () => {
    const error = await rejection({ text: "clean up", tools: [{ name: "read_file" }, { name: "rm_rf" }] });
    expect(error.message).toMatch(/goal\.tools names rm_rf, which this deployment does not know; expected some of: read_file, write_file/);
    await nothingWritten();
  });

  it("accepts tools of a configured MCP server by its name pattern, and only those", async () => {
    const options = { knownTools: [...knownTools, "files__*"] };
    await expect(submitGoal(runtime, { text: "list the repo", tools: [{ name: "files__list" }] }, options)).resolves.toMatchObject({
      state: { status: "planning" },
    });
    await expect(submitGoal(runtime, { text: "list the repo", tools: [{ name: "other__list" }] }, options)).rejects.toThrow(
      /goal\.tools names other__list/,
    );
  });

  it("creates the run and enqueues goal.submitted for a valid goal", async () => {
    const { runId, state } = await submitGoal(runtime, { text: "read the readme", tools: [{ name: "read_file" }] }, { knownTools });
    expect(state.status).toBe("planning");
    expect((await runtime.runs.require(runId)).goal.text).toBe("read the readme");
    const job = await runtime.queues.control.getJob(`control-submitted-${runId}`);
    expect(job?.data).toMatchObject({ type: "goal.submitted", runId });
    const [submitted] = await runtime.trace.read(runId);
    expect(submitted?.kind).toBe("run.submitted");
  });

  it('traces a warning on every run when config says "sandbox": "none", and none by default', async () => {
    const { runId: sandboxed } = await submitGoal(runtime, { text: "List the files" }, { knownTools });
    expect((await runtime.trace.read(sandboxed)).map((event) => event.kind)).not.toContain("sandbox.disabled");
    const unsandboxed = await createTestRuntime({ sandbox: "none" });
    try {
      const { runId } = await submitGoal(unsandboxed, { text: "List the files" }, { knownTools });
      const warning = (await unsandboxed.trace.read(runId)).find((event) => event.kind === "sandbox.disabled");
      expect(String(warning?.payload.warning)).toContain("unconfined");
    } finally {
      await unsandboxed.cleanup();
    }
  });
});

describe("submitGoal with no options, as the docs call it", () => {
  it("knows the deployment's tools from its config: built-ins and tools.extra are accepted, any other name refused", async () => {
    const runtime = await createTestRuntime({ tools: { extra: ["shout"] } });
    try {
      const { runId } = await submitGoal(runtime, {
        text: "Read the README and shout it",
        tools: [{ name: "read_file" }, { name: "shout" }],
      });
      expect((await runtime.runs.require(runId)).goal.tools.map((grant) => grant.name)).toEqual(["read_file", "shout"]);
      await expect(submitGoal(runtime, { text: "clean up", tools: [{ name: "rm_rf" }] })).rejects.toThrow(
        /goal\.tools names rm_rf, which this deployment does not know/,
      );
    } finally {
      await runtime.cleanup();
    }
  });
});
