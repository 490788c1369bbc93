import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { isTerminal, type RunState, type TraceEvent } from "@rein/contracts/run";
import { buildRegistry, submitGoal } from "@rein/controller";
import { fanOutGoal, fanOutScript, holdAtGate } from "./fan-out-fixture.ts";
import { openScalingDeployment, type ScalingDeployment } from "./scaling-deployment.ts";
import { ARRIVALS_FILE, OPEN_FILE } from "./scaling-fixture.ts";
import type { WorkerProcess } from "./worker-process.ts";

const ENTRY = fileURLToPath(new URL("./fan-out-worker-entry.ts", import.meta.url));
// As scaling.int.test.ts: a SIGKILLed worker's job comes back within seconds, a live one's lock never lapses.
const LOCK_MS = 4_000;
const STALLED_MS = 1_000;
const WAIT = { timeout: 120_000, interval: 50 };

describe("a fan-out whose child's step-worker process is SIGKILLed mid-step", { timeout: 180_000 }, () => {
  let deployment: ScalingDeployment;
  let killed: WorkerProcess;
  let survivor: WorkerProcess;
  let heldByKilled: string;
  let arrivals: { stepId: string; pid: number }[];
  let state: RunState;
  let events: TraceEvent[];

  beforeAll(async () => {
    deployment = await openScalingDeployment({ lockMs: LOCK_MS, stalledMs: STALLED_MS });
    const { runtime, gateDir } = deployment;
    const readArrivals = async () =>
      (await readFile(join(gateDir, ARRIVALS_FILE), "utf8").catch(() => ""))
        .split("\n")
        .filter(Boolean)
        .map((line) => line.split(" "))
        .map(([, stepId = "", pid = ""]) => ({ stepId, pid: Number(pid) }));
    // Three children, three slots: once all wait at the gate, the one-slot process holds exactly one of them.
    killed = deployment.spawnWorker("a", 1, ENTRY);
    survivor = deployment.spawnWorker("b", 2, ENTRY);
    await Promise.all([killed.printed("ready"), survivor.printed("ready")]);
    deployment.startOtherRoles(fanOutScript);
    const knownTools = buildRegistry(runtime.config, [holdAtGate(gateDir)]).names();
    const { runId } = await submitGoal(runtime, fanOutGoal, { knownTools });
    await vi.waitFor(async () => expect(await readArrivals()).toHaveLength(3), WAIT);
    heldByKilled = (await readArrivals()).find((arrival) => arrival.pid === killed.pid)?.stepId ?? "";

    killed.child.kill("SIGKILL");
    await killed.exited;
    await writeFile(join(gateDir, OPEN_FILE), "");
    await vi.waitFor(async () => {
      state = await runtime.runs.require(runId);
      expect(isTerminal(state.status)).toBe(true);
    }, WAIT);
    events = await runtime.trace.read(runId);
    arrivals = await readArrivals();
  }, 180_000);
  afterAll(async () => deployment?.close("SIGTERM"));

  it("recovers the killed worker's child on the other process like any step", () => {
    expect(["s1", "s2", "s3"]).toContain(heldByKilled);
    expect(arrivals.filter((arrival) => arrival.stepId === heldByKilled).map((arrival) => arrival.pid)).toEqual([killed.pid, survivor.pid]);
    expect(state.status).toBe("done");
  });

  it("judges each child once and joins the group once, with every child in the order asked", () => {
    for (const stepId of ["s1", "s2", "s3"]) {
      expect(events.filter((event) => event.kind === "step.finished" && event.stepId === stepId)).toHaveLength(1);
      expect(events.filter((event) => event.kind === "verdict.ready" && event.stepId === stepId)).toHaveLength(1);
    }
    const joins = events.filter((event) => event.kind === "group.joined");
    expect(joins).toHaveLength(1);
    expect(joins[0]?.payload).toMatchObject({
      outcome: "joined",
      inputs: ["s1", "s2", "s3"].map((stepId) => ({ stepId, phase: "completed", decision: "continue" })),
      cancelled: [],
    });
    expect(events.filter((event) => event.kind === "plan.requested")).toHaveLength(2);
  });
});
