import { afterAll, describe, expect, it } from "vitest";
import { newId } from "@rein/contracts";
import type { LiveEvent } from "@rein/runtime";
import { submitGoal } from "@rein/controller";
import { bugfixExample, type Harness, startHarness } from "./support/harness.ts";

describe("the run's live channel", () => {
  let harness: Harness | undefined;
  afterAll(async () => {
    await harness?.close();
  });

  it("carries what the planner, the worker and the judge write, as they write it", async () => {
    const { example, script } = await bugfixExample();
    harness = await startHarness(script, [], { config: example.config });
    const runId = newId("run");
    const live: LiveEvent[] = [];
    const subscription = await harness.runtime.live.subscribe(runId, (event) => live.push(event));
    try {
      await submitGoal(harness.runtime, example.goal, {
        knownTools: harness.tooling.registry.names(),
        runId,
        workspaceDir: example.seedDir,
      });
      expect((await harness.waitFor(runId)).status).toBe("done");
    } finally {
      await subscription.close();
    }
    const roles = new Set(live.map((event) => event.role));
    expect([...roles].sort()).toEqual(["judge", "planner", "worker"]);
    expect(live.map((event) => (event.role === "planner" && event.type === "text_delta" ? event.text : "")).join("")).toContain(
      '"current_step"',
    );
    expect(live.find((event) => event.role === "judge")?.stepId).toBe("s1");
  });
});
