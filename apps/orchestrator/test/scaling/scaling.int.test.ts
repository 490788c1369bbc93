import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { isTerminal, type RunState } from "@rein/contracts/run";
import type { TestRuntime } from "@rein/runtime/testing";
import { submitGoal, buildRegistry } from "@rein/controller";
import { openScalingDeployment, type ScalingDeployment } from "./scaling-deployment.ts";
import {
  ARRIVALS_FILE,
  appendEffect,
  EFFECTS_FILE,
  EXECUTIONS_FILE,
  OPEN_FILE,
  scalingGoal,
  scalingScript,
  waitForGate,
} from "./scaling-fixture.ts";
import type { WorkerProcess } from "./worker-process.ts";

const RUNS = 30;
// Low enough that a SIGKILLed worker's jobs come back within seconds, high
// enough that a busy 2-core machine never lets a live worker's lock lapse.
const LOCK_MS = 4_000;
const STALLED_MS = 1_000;
// The SIGTERMed worker's steps wait at a closed gate, so they cannot finish in
// its grace period: it must give them back and still exit 0.
const GRACE_MS = 500;
const WAIT = { timeout: 300_000, interval: 50 };

describe("three step-worker processes, 30 runs, one worker SIGKILLed and one SIGTERMed mid-step", () => {
  let deployment: ScalingDeployment;
  let runtime: TestRuntime;
  let gateDir: string;
  let workers: WorkerProcess[] = [];
  let killed: WorkerProcess;
  let terminated: WorkerProcess;
  let terminatedExit: { code: number | null; signal: NodeJS.Signals | null };
  let killedExit: { code: number | null; signal: NodeJS.Signals | null };
  let firstHolder: Map<string, number>;
  let arrivals: { runId: string; pid: number }[];
  let executions: { runId: string; n: string; pid: number }[];
  let states: RunState[];

  const readLog = async (file: string) =>
    (await readFile(join(gateDir, file), "utf8").catch(() => ""))
      .split("\n")
      .filter(Boolean)
      .map((line) => line.split(" "));
  const readArrivals = async () => (await readLog(ARRIVALS_FILE)).map(([runId = "", pid = ""]) => ({ runId, pid: Number(pid) }));

  beforeAll(async () => {
    deployment = await openScalingDeployment({ lockMs: LOCK_MS, stalledMs: STALLED_MS, graceMs: GRACE_MS });
    ({ runtime, gateDir } = deployment);
    // Concurrencies sum to RUNS: once every run waits at the gate, each process holds exactly its concurrency.
    workers = [deployment.spawnWorker("a", 8), deployment.spawnWorker("b", 10), deployment.spawnWorker("c", 12)];
    [killed, terminated] = workers as [WorkerProcess, WorkerProcess];
    await Promise.all(workers.map((worker) => worker.printed("ready")));
    // The controller, planner and evaluator stay in this process, each with its own connections.
    deployment.startOtherRoles(scalingScript);

    const knownTools = buildRegistry(runtime.config, [appendEffect(gateDir), waitForGate(gateDir)]).names();
    const runIds = await Promise.all(
      Array.from({ length: RUNS }, async () => (await submitGoal(runtime, scalingGoal, { knownTools })).runId),
    );

    await vi.waitFor(async () => {
      expect(new Set((await readArrivals()).map((arrival) => arrival.runId)).size).toBe(RUNS);
    }, WAIT);
    firstHolder = new Map();
    for (const arrival of await readArrivals()) if (!firstHolder.has(arrival.runId)) firstHolder.set(arrival.runId, arrival.pid);

    // Every step sits between its two effects: kill one worker, stop another, then let the rest go on.
    killed.child.kill("SIGKILL");
    terminated.child.kill("SIGTERM");
    [killedExit, terminatedExit] = await Promise.all([killed.exited, terminated.exited]);
    await writeFile(join(gateDir, OPEN_FILE), "");
    await vi.waitFor(async () => {
      const current = await Promise.all(runIds.map((runId) => runtime.runs.require(runId)));
      expect(current.filter((state) => !isTerminal(state.status)).map((state) => state.runId)).toEqual([]);
      states = current;
    }, WAIT);
    arrivals = await readArrivals();
    executions = (await readLog(EXECUTIONS_FILE)).map(([runId = "", n = "", pid = ""]) => ({ runId, n, pid: Number(pid) }));
  }, 600_000);

  afterAll(() => deployment?.close("SIGTERM"), 120_000);

  it("had every process holding steps when the signals arrived", () => {
    const held = (worker: WorkerProcess) => [...firstHolder.values()].filter((pid) => pid === worker.pid).length;
    expect(workers.map(held)).toEqual(workers.map((worker) => worker.concurrency));
  });

  it("ends every run done", () => {
    expect(states.map((state) => [state.runId, state.status, state.stopReason])).toEqual(
      states.map((state) => [state.runId, "done", "the evaluator verified the answer"]),
    );
  });

  it("performs each intended effect exactly once: none lost, none doubled", async () => {
    for (const state of states) {
      const lines = (await readFile(join(runtime.config.workspaceRoot, state.runId, EFFECTS_FILE), "utf8")).split("\n").filter(Boolean);
      expect(lines, state.runId).toEqual([`${state.runId} 1`, `${state.runId} 2`]);
    }
  });

  // The second effect comes after the gate, so whoever performed it finished the step.
  const finishedElsewhere = (worker: WorkerProcess) =>
    [...firstHolder]
      .filter(([, pid]) => pid === worker.pid)
      .map(([runId]) => [
        runId,
        executions.some((execution) => execution.runId === runId && execution.n === "2" && execution.pid !== worker.pid),
      ]);

  it("gives back the SIGTERMed worker's unfinished steps past its grace period, exits 0, and another worker finishes them", () => {
    expect(terminatedExit, terminated.output()).toEqual({ code: 0, signal: null });
    const given = finishedElsewhere(terminated);
    expect(given).toHaveLength(terminated.concurrency);
    expect(given).toEqual(given.map(([runId]) => [runId, true]));
  });

  it("leaves no trace of a failed call where the SIGTERMed worker's calls were cut off: they are interrupted, not observed", async () => {
    for (const [runId] of finishedElsewhere(terminated)) {
      const events = await runtime.trace.read(String(runId));
      expect(events.filter((event) => event.kind === "tool.interrupted").length, String(runId)).toBeGreaterThan(0);
      const failed = events.filter((event) => event.kind === "tool.result" && event.payload.status !== "ok");
      expect(
        failed.map((event) => event.payload),
        String(runId),
      ).toEqual([]);
    }
  });

  it("recovers the SIGKILLed worker's steps through BullMQ's stalled check on another worker", async () => {
    expect(killedExit.signal).toBe("SIGKILL");
    const recovered = finishedElsewhere(killed);
    expect(recovered).toHaveLength(killed.concurrency);
    expect(recovered).toEqual(recovered.map(([runId]) => [runId, true]));
    // Killed inside the wait, so the step resumed from before it and waited again on the new worker.
    for (const [runId] of recovered) expect(arrivals.filter((arrival) => arrival.runId === runId).length, String(runId)).toBe(2);
    expect(await runtime.queues.step.getJobCounts("failed", "active", "wait")).toEqual({ failed: 0, active: 0, wait: 0 });
  });
});
