import { echoTool } from "@rein/tools/testing";
import { agentsRun } from "./agents-loop.ts";
import { bareRun } from "./bare-loop.ts";
import type { BenchEnv } from "./bench-env.ts";
import { startDeployment } from "./deployment.ts";
import { percentile } from "./measure.ts";
import { echoGoal, echoPlan, echoWorkerScript } from "./scripts.ts";

export interface TurnCosts {
  /** µs per turn by turn count: Rein's worker, @openai/agents, and the bare loop. */
  rein: Map<number, number>;
  agents: Map<number, number>;
  bare: Map<number, number>;
  /** Redis commands and bytes Rein's worker sends per turn, by turn count. */
  reinTraffic: Map<number, { commands: number; bytes: number }>;
}

/**
 * The cost of one model↔tool turn in a step of n turns, for Rein's step
 * worker (the real step consumer in this process: full executor pipeline,
 * tracing and checkpoints on real Redis), @openai/agents' runner and a bare
 * loop, all on the same scripted echo conversation and tool. Per-step costs
 * are taken out by subtracting a 1-turn step: (T(n) − T(1)) / (n − 1). The
 * three are interleaved round by round; each figure is the median of rounds.
 */
export async function turnCosts(env: BenchEnv, turnCounts: readonly number[], rounds: number): Promise<TurnCosts> {
  const deployment = await startDeployment(env, echoWorkerScript([1, ...turnCounts]), [echoTool]);
  try {
    const runIds = await deployment.submitRuns((rounds + 1) * (turnCounts.length + 1), echoGoal);
    const reinStep = async (turns: number) => {
      const runId = runIds.pop();
      if (!runId) throw new Error("turnCosts submitted too few runs");
      const before = deployment.stepTraffic();
      const times = await deployment.runStep(runId, echoPlan(turns));
      const after = deployment.stepTraffic();
      return { millis: times.finished - times.started, commands: after.commands - before.commands, bytes: after.bytes - before.bytes };
    };
    const runners = {
      rein: async (turns: number) => (await reinStep(turns)).millis,
      agents: agentsRun,
      bare: async (turns: number) => bareRun(turns),
    };
    // Warm-up: JIT, connections, module loading; not measured.
    for (const run of Object.values(runners)) await run(turnCounts[0] ?? 2);

    const perTurn = { rein: new Map<number, number[]>(), agents: new Map<number, number[]>(), bare: new Map<number, number[]>() };
    const traffic = new Map<number, { commands: number[]; bytes: number[] }>();
    for (let round = 0; round < rounds; round += 1) {
      const reinBase = await reinStep(1);
      for (const turns of turnCounts) {
        const sample = await reinStep(turns);
        push(perTurn.rein, turns, ((sample.millis - reinBase.millis) * 1000) / (turns - 1));
        const seen = traffic.get(turns) ?? { commands: [], bytes: [] };
        seen.commands.push((sample.commands - reinBase.commands) / (turns - 1));
        seen.bytes.push((sample.bytes - reinBase.bytes) / (turns - 1));
        traffic.set(turns, seen);
      }
      for (const name of ["agents", "bare"] as const) {
        const base = await runners[name](1);
        for (const turns of turnCounts) push(perTurn[name], turns, (((await runners[name](turns)) - base) * 1000) / (turns - 1));
      }
    }
    const medians = (samples: Map<number, number[]>) => new Map([...samples].map(([turns, values]) => [turns, percentile(values, 50)]));
    return {
      rein: medians(perTurn.rein),
      agents: medians(perTurn.agents),
      bare: medians(perTurn.bare),
      reinTraffic: new Map(
        [...traffic].map(([turns, seen]) => [turns, { commands: percentile(seen.commands, 50), bytes: percentile(seen.bytes, 50) }]),
      ),
    };
  } finally {
    await deployment.close();
  }
}

function push(samples: Map<number, number[]>, turns: number, value: number): void {
  samples.set(turns, [...(samples.get(turns) ?? []), value]);
}
