import { performance } from "node:perf_hooks";
import { hashOf, type ModelRequest } from "@rein/core";
import type { BenchEnv } from "./bench-env.ts";
import { startDeployment } from "./deployment.ts";
import { echoGoal, echoPlan, echoTool, echoWorkerScript } from "./scripts.ts";

export interface InnerTurnResult {
  /** µs per turn, by turn count. */
  microsPerTurn: Map<number, number>;
  /** Redis commands and bytes the worker sends per turn, by turn count (same subtraction as the time). */
  trafficPerTurn: Map<number, { commands: number; bytes: number }>;
  /** µs per call of the per-turn work that grows with history, at the first and last measured turn counts. */
  growth: { operation: string; turn: number; micros: number }[];
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
    const requestsOf = new Map<number, ModelRequest[]>();
    for (const turns of turnCounts) {
      const sample = await stepOf(turns);
      microsPerTurn.set(turns, ((sample.millis - base.millis) * 1000) / (turns - 1));
      trafficPerTurn.set(turns, { commands: (sample.commands - base.commands) / (turns - 1), bytes: (sample.bytes - base.bytes) / (turns - 1) });
      requestsOf.set(turns, deployment.worker.requests.filter((request) => request.metadata?.runId === sample.runId));
    }
    const last = turnCounts.at(-1) ?? 1;
    const lastRequests = requestsOf.get(last) ?? [];
    const growth = turnCounts.flatMap((turn) => historyCosts(lastRequests[turn - 1], turn));
    return { microsPerTurn, trafficPerTurn, growth };
  } finally {
    await deployment.close();
  }
}

/** What a turn pays for history it re-reads: the provider's clone, the trace's input hash, a JSON copy. */
function historyCosts(request: ModelRequest | undefined, turn: number): { operation: string; turn: number; micros: number }[] {
  if (!request) return [];
  const time = (operation: string, work: () => unknown) => {
    const rounds = 50;
    const started = performance.now();
    for (let index = 0; index < rounds; index += 1) work();
    return { operation, turn, micros: ((performance.now() - started) * 1000) / rounds };
  };
  return [
    time("structuredClone(request)", () => structuredClone(request)),
    time("hashOf(request) in tracedComplete", () => hashOf({ system: request.system, messages: request.messages, tools: request.tools, output: request.output })),
    time("JSON.stringify(messages)", () => JSON.stringify(request.messages)),
  ];
}
