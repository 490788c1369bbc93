import type { BenchEnv } from "./bench-env.ts";
import { startDeployment } from "./deployment.ts";
import { noopPlan, noopWorkerScript } from "./scripts.ts";

/**
 * Controller enqueues a step → a worker with a no-op model finishes it →
 * the controller has applied `step.finished`, one run at a time. Returns
 * milliseconds per cycle.
 */
export async function dispatchCycles(env: BenchEnv, samples: number, warmup: number): Promise<number[]> {
  const deployment = await startDeployment(env, noopWorkerScript);
  try {
    const runIds = await deployment.submitRuns(warmup + samples);
    const times: number[] = [];
    for (const [index, runId] of runIds.entries()) {
      const step = await deployment.runStep(runId, noopPlan("No-op step"));
      if (index >= warmup) times.push(step.applied - step.enqueued);
    }
    return times;
  } finally {
    await deployment.close();
  }
}
