import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { RunState } from "@rein/contracts/run";
import { submitGoal, buildRegistry } from "@rein/controller";
import { crashGoal, crashScript, deployRelease, EFFECTS_FILE, STARTED_FILE } from "./crash-effect-fixture.ts";
import { openScalingDeployment, type ScalingDeployment } from "./scaling-deployment.ts";

const ENTRY = fileURLToPath(new URL("./crash-effect-entry.ts", import.meta.url));
const WAIT = { timeout: 180_000, interval: 50 };

describe("a step worker SIGKILLed in the middle of a non-idempotent effect (issue 13.4)", () => {
  let deployment: ScalingDeployment;
  let runId: string;
  let state: RunState;

  beforeAll(async () => {
    deployment = await openScalingDeployment({ lockMs: 3_000, stalledMs: 1_000 });
    const { runtime, gateDir } = deployment;
    const first = deployment.spawnWorker("first", 1, ENTRY);
    await first.printed("ready");
    deployment.startOtherRoles(crashScript);
    const knownTools = buildRegistry(runtime.config, [deployRelease(gateDir)]).names();
    runId = (await submitGoal(runtime, crashGoal, { knownTools })).runId;

    // The effect is done and the call still running: the worker dies between the call's intent and its outcome.
    await vi.waitFor(async () => expect(await readFile(join(gateDir, STARTED_FILE), "utf8").catch(() => "")).toContain(runId), WAIT);
    first.child.kill("SIGKILL");
    await first.exited;
    const second = deployment.spawnWorker("second", 1, ENTRY);
    await second.printed("ready");

    await vi.waitFor(async () => {
      state = await runtime.runs.require(runId);
      expect(state.status).toBe("escalated");
    }, WAIT);
  }, 300_000);

  afterAll(() => deployment?.close("SIGKILL"), 120_000);

  it("does not perform the effect again when the step resumes on another worker", async () => {
    const lines = (await readFile(join(deployment.runtime.config.workspaceRoot, runId, EFFECTS_FILE), "utf8")).split("\n").filter(Boolean);
    expect(lines).toEqual([`${runId} v2`]);
  });

  it("escalates the run to a person with the action shown", async () => {
    const text = JSON.stringify(state);
    expect(text).toContain('outcome unknown after a crash: deploy_release {\\"release\\":\\"v2\\"}');
    const kinds = (await deployment.runtime.trace.read(runId)).map((event) => event.kind);
    expect(kinds).toContain("tool.outcome_unknown");
  });
});
