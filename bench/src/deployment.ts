import { performance } from "node:perf_hooks";
import { type Plan, zeroUsage } from "@rein/contracts";
import { type ModelScriptInput, ScriptedProvider } from "@rein/models";
import type { ReinRuntime } from "@rein/runtime";
import type { AnyTool } from "@rein/tools";
import { ApprovalVerifier, generateKeyPair } from "@rein/signing";
import { buildTooling, type RunningRoles, startRoles, submitGoal } from "@rein/orchestrator";
import type { BenchEnv } from "./bench-env.ts";
import { noopGoal } from "./scripts.ts";
import { onStepResultApplied } from "./step-applied.ts";
import { waitUntil } from "./wait-until.ts";

/** When this process saw a run's step enqueued, started, finished, and its result applied. */
export interface StepTimes {
  enqueued: number;
  started: number;
  finished: number;
  applied: number;
}

/**
 * The controller and a step consumer in this process, each with its own
 * connections, a scripted worker model, and clocks on the moments a
 * dispatch cycle is made of. The bench plays the planner, so a step starts
 * exactly when the bench hands the controller a plan.
 */
export interface Deployment {
  intake: ReinRuntime;
  worker: ScriptedProvider;
  /** Commands and argument bytes the step worker has sent on its store connection (trace, checkpoints, tool stores). */
  stepTraffic(): { commands: number; bytes: number };
  /** Submits `count` runs of `goal` and waits until the controller has asked for their first plan. */
  submitRuns(count: number, goal?: Parameters<typeof submitGoal>[1]): Promise<string[]>;
  /** Hands the controller plan 1 of a run and resolves when the evaluate role has applied the step's result. */
  runStep(runId: string, plan: Plan): Promise<StepTimes>;
  close(): Promise<void>;
}

export async function startDeployment(env: BenchEnv, workerScript: ModelScriptInput, tools: readonly AnyTool[] = []): Promise<Deployment> {
  const control = env.runtime();
  const step = env.runtime();
  const intake = env.runtime();
  const marks = new Map<string, Partial<StepTimes>>();
  const mark = (runId: string, moment: keyof StepTimes) => {
    const times = marks.get(runId) ?? {};
    times[moment] ??= performance.now();
    marks.set(runId, times);
  };
  // Instrumentation only: the moment this controller starts adding a run's step job.
  const sendStep = control.queues.sendStep.bind(control.queues);
  control.queues.sendStep = (job, jobId, build) => {
    mark(job.packet.body.runId, "enqueued");
    return sendStep(job, jobId, build);
  };
  const traffic = countTraffic(step);
  const worker = new ScriptedProvider(workerScript, { name: "scripted-worker" });
  const tooling = await buildTooling(step, tools, new ApprovalVerifier(generateKeyPair().publicKey));
  const waiting = new Map<string, { resolve: (times: StepTimes) => void; reject: (error: Error) => void }>();
  onStepResultApplied(control, (runId) => {
    mark(runId, "applied");
    waiting.get(runId)?.resolve(marks.get(runId) as StepTimes);
  });
  // The evaluate role applies a step's result (and then judges it, which runStep does not wait for).
  const roles: RunningRoles[] = [
    startRoles(control, {
      roles: ["control", "evaluate"],
      packetPrivateKey: env.keys.privateKey,
      providers: { judge: new ScriptedProvider({}) },
    }),
    startRoles(step, { roles: ["step"], packetPublicKey: env.keys.publicKey, executor: tooling.executor, providers: { worker } }),
  ];
  const [trusted, stepRole] = roles;
  const stepConsumer = stepRole?.workers[0];
  const runOfStep = (job: { data: unknown }) => (job.data as { packet: { body: { runId: string } } }).packet.body.runId;
  const runOfEvent = (job: { data: unknown }) => (job.data as { runId: string }).runId;
  stepConsumer?.on("active", (job) => mark(runOfStep(job), "started"));
  stepConsumer?.on("completed", (job) => mark(runOfStep(job), "finished"));
  // A broken controller, evaluator or worker must stop the bench with its reason, not leave it waiting.
  for (const worker of trusted?.workers ?? []) {
    worker.on("failed", (job, error) => {
      if (job) waiting.get(runOfEvent(job))?.reject(new Error(`${worker.name} failed ${job.name}: ${error.message}`));
    });
  }
  stepConsumer?.on("failed", (job, error) => {
    if (job) waiting.get(runOfStep(job))?.reject(new Error(`the step worker failed: ${error.message}`));
  });

  return {
    intake,
    worker,
    stepTraffic: () => ({ ...traffic }),
    submitRuns: async (count, goal = noopGoal) => {
      const knownTools = tooling.registry.names();
      const runIds: string[] = [];
      for (let index = 0; index < count; index += 1) runIds.push((await submitGoal(intake, goal, { knownTools })).runId);
      await waitUntil(async () =>
        (await Promise.all(runIds.map((runId) => intake.runs.require(runId)))).every((state) => state.planCount === 1),
      );
      return runIds;
    },
    runStep: async (runId, plan) => {
      const applied = new Promise<StepTimes>((resolve, reject) => waiting.set(runId, { resolve, reject }));
      await intake.queues.sendControl({
        type: "plan.ready",
        eventId: `bench-planned-${runId}`,
        runId,
        planNo: 1,
        plan,
        usage: zeroUsage(),
        lessonsUsed: [],
      });
      try {
        return await applied;
      } finally {
        waiting.delete(runId);
      }
    },
    close: async () => {
      for (const running of roles) await running.close();
      await tooling.close();
    },
  };
}

/**
 * Instrumentation only: counts what goes through this runtime's store
 * connection. Every command, piped or not, passes through `sendCommand`.
 */
function countTraffic(runtime: ReinRuntime): { commands: number; bytes: number } {
  const traffic = { commands: 0, bytes: 0 };
  const redis = runtime.redis as unknown as { sendCommand: (command: { args: unknown[] }, ...rest: unknown[]) => unknown };
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (command, ...rest) => {
    traffic.commands += 1;
    for (const arg of command.args)
      traffic.bytes += typeof arg === "string" ? Buffer.byteLength(arg) : Buffer.isBuffer(arg) ? arg.length : String(arg).length;
    return send(command, ...rest);
  };
  return traffic;
}
