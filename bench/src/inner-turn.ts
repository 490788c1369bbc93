import type { BenchEnv } from "./bench-env.ts";
import { startDeployment } from "./deployment.ts";
import { echoGoal, echoPlan, echoTool, echoWorkerScript } from "./scripts.ts";

export interface InnerTurnResult {
  /** µs per turn, by turn count. */
  microsPerTurn: Map<number, number>;
  /** Redis commands and bytes the worker sends per turn, by turn count (same subtraction as the time). */
  trafficPerTurn: Map<number, { commands: number; bytes: number }>;
}

/**
 * A worker step of n turns, each a scripted model reply calling one trivial
 * tool through the whole executor pipeline with tracing on, run by the real
 * step consumer. The per-step cost (packet check, step.started, workspace,
 * step.finished) is taken out by subtracting a 1-turn step:
 * µs/turn = (T(n) − T(1)) / (n − 1), median of `repeats`.
 */
export async function innerTurns(env: BenchEnv, turnCounts: readonly number[], repeats: number): Promise<InnerTurnResult> {
  const deployment = await startDeployment(env, echoWorkerScript([1, ...turnCounts]), [echoTool]);
  try {
    type Sample = { millis: number; commands: number; bytes: number; runId: string };
    const stepOf = async (turns: number): Promise<Sample> => {
      const samples: Sample[] = [];
      for (const runId of await deployment.submitRuns(repeats, echoGoal)) {
        const before = deployment.stepTraffic();
        const times = await deployment.runStep(runId, echoPlan(turns));
        const after = deployment.stepTraffic();
        samples.push({ millis: times.finished - times.started, commands: after.commands - before.commands, bytes: after.bytes - before.bytes, runId });
      }
      samples.sort((a, b) => a.millis - b.millis);
      return samples[Math.floor(samples.length / 2)] as Sample;
    };
    await stepOf(turnCounts[0] ?? 1); // warm-up: JIT and connections, not measured
    const base = await stepOf(1);
    const microsPerTurn = new Map<number, number>();
    const trafficPerTurn = new Map<number, { commands: number; bytes: number }>();
    for (const turns of turnCounts) {
      const sample = await stepOf(turns);
      microsPerTurn.set(turns, ((sample.millis - base.millis) * 1000) / (turns - 1));
      trafficPerTurn.set(turns, { commands: (sample.commands - base.commands) / (turns - 1), bytes: (sample.bytes - base.bytes) / (turns - 1) });
    }
    return { microsPerTurn, trafficPerTurn };
  } finally {
    await deployment.close();
  }
}
