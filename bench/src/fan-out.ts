import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { StepSpec } from "@rein/contracts";
import { isTerminal, type TraceEvent } from "@rein/contracts/run";
import { type ModelProvider, ScriptedProvider } from "@rein/models";
import { buildTooling, startRoles, submitGoal } from "@rein/orchestrator";
import { ApprovalVerifier, generateKeyPair } from "@rein/signing";
import { type BenchEnv, withBenchEnv } from "./bench-env.ts";
import { type Measure, measure } from "./measure.ts";
import { waitUntil } from "./wait-until.ts";

export interface FanOutWall {
  /** From submit until the run is done. */
  seconds: number;
  /** Where those seconds went: each trace event's kind and step at its offset from the first. */
  timeline: string[];
}

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
export async function fanOutWall(env: BenchEnv, options: { children: number; delayMs: number; workers: number }): Promise<FanOutWall> {
  // The deployment must allow as many in flight as the run asks for (config packets.maxParallel, 4 by default).
  if (env.config.packets.maxParallel < options.children)
    throw new Error(`bench: open the fan-out's env with packets.maxParallel ${options.children}, not ${env.config.packets.maxParallel}`);
  const runtime = env.runtime();
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
    const seconds = (performance.now() - started) / 1000;
    return { seconds, timeline: timelineOf(await runtime.trace.read(runId)) };
  } finally {
    await running.close();
    await tooling.close();
  }
}

function timelineOf(events: readonly TraceEvent[]): string[] {
  const first = events[0] ? Date.parse(events[0].ts) : 0;
  return events.map(
    (event) =>
      `${((Date.parse(event.ts) - first) / 1000).toFixed(3).padStart(7)} s  ${event.kind}${event.stepId ? ` ${event.stepId}` : ""}`,
  );
}

/**
 * Issue 30's figures: a fan-out of 5 children whose model calls each take
 * 2 s, with 5 step slots (target under 4 s) and with 1 (about 10 s), each in
 * its own env whose config allows 5 in flight. `onTimeline` gets each run's.
 */
export async function fanOutMeasures(redisUrl: string, onTimeline: (lines: string[]) => void = () => {}): Promise<Measure[]> {
  const children = 5;
  const delayMs = 2000;
  const measures: Measure[] = [];
  for (const workers of [children, 1]) {
    const wall = await withBenchEnv(redisUrl, `fan-out-${workers}`, (env) => fanOutWall(env, { children, delayMs, workers }), {
      packets: { maxParallel: children },
    });
    onTimeline([`fan-out of ${children} x ${delayMs / 1000} s, ${workers} step slot(s): ${wall.seconds.toFixed(2)} s`, ...wall.timeline]);
    const target = workers === children ? ({ of: "value", op: "<=", limit: 4 } as const) : undefined;
    measures.push(
      measure(
        `fan-out of ${children} children x ${delayMs / 1000} s model calls, ${workers} step slot(s), wall`,
        wall.seconds,
        "s",
        null,
        target,
      ),
    );
  }
  return measures;
}
