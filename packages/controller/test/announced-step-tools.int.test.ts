import { afterEach, describe, expect, it } from "vitest";
import { ReinError } from "@rein/contracts";
import { createTestRuntime, type TestRuntime } from "@rein/runtime/testing";
import { submitGoal } from "../src/intake/submit-goal.ts";
import { publishWorkerStatus } from "../src/roles/worker-status-board.ts";

// Any process with the prefix's Redis can write the worker status board; what it writes there only lets a goal name a tool.
describe("tool names a step worker announces", () => {
  let runtime: TestRuntime | undefined;
  afterEach(async () => {
    await runtime?.cleanup();
  });

  const submit = (rt: TestRuntime, tool: string) =>
    submitGoal(rt, { text: "use the tool", tools: [{ name: tool }] }, { knownTools: ["read_file"] });

  it("accept a goal granting the tool while the step worker beats, and stop once it has gone", async () => {
    runtime = await createTestRuntime();
    const unpublish = publishWorkerStatus(runtime, { roles: ["step"], tools: ["shout"] });
    await expect.poll(async () => (await submit(runtime as TestRuntime, "shout").catch(() => undefined))?.runId).toMatch(/^run_/);
    await unpublish();
    await expect(submit(runtime, "shout")).rejects.toSatisfy(
      (error) => ReinError.isInstance(error) && error.code === "goal_invalid" && /names shout/.test(error.message),
    );
  });

  it("count nothing from a process that is not a step worker, or from one that stopped beating long ago", async () => {
    runtime = await createTestRuntime();
    const board = `${runtime.config.prefix}:worker-status`;
    const entry = (roles: string[], tools: string[], at: number) => JSON.stringify({ at, process: "x", roles, concurrency: null, tools });
    await runtime.redis.hset(board, {
      "host:1": entry(["plan", "evaluate"], ["forged_by_planner"], Date.now()),
      "host:2": entry(["step"], ["long_gone"], Date.now() - 10 * 60_000),
      "host:3": "not json {",
    });
    for (const tool of ["forged_by_planner", "long_gone"]) {
      await expect(submit(runtime, tool)).rejects.toSatisfy(
        (error) => ReinError.isInstance(error) && error.code === "goal_invalid" && error.message.includes(`names ${tool}`),
      );
    }
    expect(await runtime.runs.list()).toEqual([]);
  });
});
