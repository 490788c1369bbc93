import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { StepSpec } from "@rein/contracts";
import { isTerminal } from "@rein/contracts/run";
import { type ModelProvider, ScriptedProvider } from "@rein/models";
import { buildTooling, startRoles, submitGoal } from "@rein/orchestrator";
import { ApprovalVerifier, generateKeyPair } from "@rein/signing";
import type { BenchEnv } from "./bench-env.ts";
import { waitUntil } from "./wait-until.ts";

const child = (index: number): StepSpec => ({
  title: `Look-up ${index}`,
  objective: "Report that there is nothing to do.",
  acceptance_criteria: [],
  tools: [],
  evidence_ids: [],
  output_contract: { description: "one sentence", format: "text" },
  budget: {},
});

/** A worker model that takes `delayMs` to answer each call, as a real model would. */
function slowed(inner: ModelProvider, delayMs: number): ModelProvider {
  return Object.assign(Object.create(inner) as ModelProvider, {
    complete: async (...args: Parameters<ModelProvider["complete"]>) => {
      await sleep(delayMs);
      return inner.complete(...args);
    },
  });
}

/**
 * One run whose plan fans out into `children` independent steps, each one
 * worker model call of `delayMs`, with every role in this process and
 * `workers` step slots: seconds from submit until the run is done.
 */
export async function fanOutWall(env: BenchEnv, options: { children: number; delayMs: number; workers: number }): Promise<number> {
  const runtime = env.runtime();
  // The deployment allows as many in flight as the run asks for (config packets.maxParallel, 4 by default).
  runtime.config.packets.maxParallel = Math.max(runtime.config.packets.maxParallel, options.children);
  const steps = Array.from({ length: options.children }, (_, index) => child(index + 1));
  const planner = new ScriptedProvider(
    {
      planner: [
        { match: "Completed steps: none", turns: [{ output: { current_step: null, parallel: { steps, join: { rule: "all" } } } }] },
        {
          match: `Completed steps: ${options.children}`,
          turns: [{ output: { done: true, answer: { answer: "joined", claims: [], gaps: ["the look-ups observe nothing"] } } }],
        },
      ],
    },
    { name: "scripted-planner" },
  );
  const worker = slowed(
    new ScriptedProvider({ worker: [{ turns: [{ text: "Found it." }], repeatLast: true }] }, { name: "w" }),
    options.delayMs,
  );
  const tooling = await buildTooling(runtime, [], new ApprovalVerifier(generateKeyPair().publicKey));
  const running = startRoles(runtime, {
    executor: tooling.executor,
    roles: ["control", "plan", "step", "evaluate"],
    packetPrivateKey: env.keys.privateKey,
    packetPublicKey: env.keys.publicKey,
    providers: { planner, worker, judge: new ScriptedProvider({}, { name: "scripted-judge" }) },
    concurrency: options.workers,
  });
  try {
    await Promise.all(running.workers.map((each) => each.waitUntilReady()));
    const started = performance.now();
    const { runId } = await submitGoal(
      runtime,
      { text: "Bench: five independent look-ups", kind: "question", maxParallel: options.children, budget: { maxSteps: 20 } },
      { knownTools: [] },
    );
    await waitUntil(
      async () => {
        const state = await runtime.runs.require(runId);
        if (state.status === "escalated" || (isTerminal(state.status) && state.status !== "done"))
          throw new Error(`the fan-out run ended ${state.status}: ${state.stopReason ?? ""}`);
        return state.status === "done";
      },
      120_000,
      10,
    );
    return (performance.now() - started) / 1000;
  } finally {
    await running.close();
    await tooling.close();
  }
}
