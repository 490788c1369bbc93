import { performance } from "node:perf_hooks";
import { isTerminal } from "@rein/contracts/run";
import { exportPacketKeys } from "@rein/signing";
import { submitGoal } from "@rein/orchestrator";
import type { BenchEnv } from "./bench-env.ts";
import { spawnBenchChild } from "./child-process.ts";
import { noopGoal } from "./scripts.ts";
import { waitUntil } from "./wait-until.ts";

/**
 * No-op runs per second end to end: the controller, planner, step worker
 * and evaluator each in a process of its own (concurrency `concurrency`),
 * `runs` runs of one no-op step submitted at once, the clock from the first
 * submit until every run is done. A run is 11 jobs: goal.submitted, plan,
 * plan.ready, step, step.finished, evaluate, verdict.ready, plan (done),
 * plan.ready, evaluate (final answer), verdict.ready.
 */
export interface RunsThroughput {
  runsPerSecond: number;
  /** CPU (user+system ms) each role's process spent per run while the runs went through. */
  cpuPerRun: Record<(typeof ROLES)[number], number>;
}

const ROLES = ["control", "plan", "step", "evaluate"] as const;

export async function runsPerSecond(env: BenchEnv, runs: number, concurrency: number): Promise<RunsThroughput> {
  const intake = env.runtime();
  const childEnv = {
    ...env.childEnv,
    REIN_PACKET_PRIVATE_KEY: exportPacketKeys(env.keys).privateKeyPem,
    BENCH_CONCURRENCY: String(concurrency),
    BENCH_STEPS: "1",
  };
  const children = ROLES.map((role) => spawnBenchChild("./role-process.ts", { ...childEnv, BENCH_ROLE: role }));
  const cpu = async () => Promise.all(children.map(async (child) => Number(await child.ask("cpu"))));
  try {
    await Promise.all(children.map((child) => child.ready));
    const cpuBefore = await cpu();
    const started = performance.now();
    const runIds = await Promise.all(
      Array.from({ length: runs }, async () => (await submitGoal(intake, noopGoal, { knownTools: [] })).runId),
    );
    let pending = runIds;
    await waitUntil(
      async () => {
        const states = await Promise.all(pending.map((runId) => intake.runs.require(runId)));
        const ended = states.filter((state) => isTerminal(state.status) || state.status === "escalated");
        const wrong = ended.find((state) => state.status !== "done");
        if (wrong) throw new Error(`a no-op run ended ${wrong.status}: ${wrong.stopReason ?? ""}`);
        pending = states.filter((state) => !isTerminal(state.status)).map((state) => state.runId);
        return pending.length === 0;
      },
      180_000,
      25,
    );
    const elapsed = (performance.now() - started) / 1000;
    const cpuAfter = await cpu();
    const perRun = (index: number) => ((cpuAfter[index] ?? 0) - (cpuBefore[index] ?? 0)) / 1000 / runs;
    return { runsPerSecond: runs / elapsed, cpuPerRun: { control: perRun(0), plan: perRun(1), step: perRun(2), evaluate: perRun(3) } };
  } finally {
    await Promise.all(children.map((child) => child.stop()));
  }
}
