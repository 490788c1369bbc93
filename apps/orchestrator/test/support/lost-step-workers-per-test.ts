import { afterEach } from "vitest";
import type { ModelScriptInput } from "@rein/models";
import type { ReinConfigInput } from "@rein/runtime";
import type { AnyTool } from "@rein/tools";
import { type Harness, startHarness } from "./harness.ts";
import { hangingProvider, type HungCalls, LostStepWorkers } from "./lost-step-workers.ts";

export interface LostStepWorkersRig {
  harness: Harness;
  workers: LostStepWorkers;
}

export interface LostStepWorkersOptions {
  /** Queue settings over one-second locks and stall checks (a killed worker's job is found stalled within seconds). */
  queues?: NonNullable<ReinConfigInput["queues"]>;
  /** The replacement workers' model calls go through `hung`; without it, a tool of the test's calls `hung.enter` itself. */
  modelHangs?: boolean;
}

/**
 * A rig for the test that calls `start`: a harness on `script` with `tools`,
 * and the LostStepWorkers that replace its step role. After the test,
 * `hung`'s calls are released, then the workers and the harness closed.
 */
export function lostStepWorkersPerTest(): {
  start(script: ModelScriptInput, tools: AnyTool[], hung: HungCalls, options?: LostStepWorkersOptions): Promise<LostStepWorkersRig>;
} {
  let open: (LostStepWorkersRig & { hung: HungCalls }) | undefined;
  afterEach(async () => {
    const closing = open;
    open = undefined;
    closing?.hung.release();
    await closing?.workers.close();
    await closing?.harness.close();
  });
  return {
    start: async (script, tools, hung, options = {}) => {
      const harness = await startHarness(script, tools, {
        config: { queues: { lockMs: 1_000, stalledIntervalMs: 1_000, ...options.queues } },
      });
      const workers = new LostStepWorkers(harness, options.modelHangs ? hangingProvider(harness.worker, hung) : harness.worker);
      open = { harness, workers, hung };
      return { harness, workers };
    },
  };
}
