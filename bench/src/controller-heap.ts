import { zeroUsage } from "@rein/contracts";
import { exportPacketKeys } from "@rein/signing";
import { submitGoal } from "@rein/orchestrator";
import type { BenchEnv } from "./bench-env.ts";
import { spawnBenchChild } from "./child-process.ts";
import { noopGoal, noopPlan } from "./scripts.ts";
import { waitUntil } from "./wait-until.ts";

/**
 * Bytes of controller heap per in-flight run: a controller process is
 * measured (after full GC) before and after `runs` runs have been
 * submitted and had their first step dispatched, with no step worker to
 * finish them. The bench plays the planner.
 */
export async function controllerHeapPerRun(env: BenchEnv, runs: number, warmup: number): Promise<number> {
  const intake = env.runtime();
  const controller = spawnBenchChild(
    "./controller-heap-child.ts",
    { ...env.childEnv, REIN_PACKET_PRIVATE_KEY: exportPacketKeys(env.keys).privateKeyPem },
    ["--expose-gc"],
  );
  const putInFlight = async (count: number) => {
    const runIds: string[] = [];
    for (let index = 0; index < count; index += 1) runIds.push((await submitGoal(intake, noopGoal, { knownTools: [] })).runId);
    await waitUntil(async () =>
      (await Promise.all(runIds.map((runId) => intake.runs.require(runId)))).every((state) => state.planCount === 1),
    );
    for (const runId of runIds) {
      await intake.queues.sendControl({
        type: "plan.ready",
        eventId: `bench-planned-${runId}`,
        runId,
        planNo: 1,
        plan: noopPlan("No-op step"),
        usage: zeroUsage(),
        lessonsUsed: [],
      });
    }
    await waitUntil(async () =>
      (await Promise.all(runIds.map((runId) => intake.runs.require(runId)))).every((state) => state.status === "dispatching"),
    );
  };
  try {
    await controller.ready;
    await putInFlight(warmup);
    const before = Number(await controller.ask("measure"));
    await putInFlight(runs);
    const after = Number(await controller.ask("measure"));
    return Math.max(0, after - before) / runs;
  } finally {
    await controller.stop();
  }
}
