import { isTerminal } from "@rein/contracts/run";
import { ApprovalVerifier, generateKeyPair } from "@rein/signing";
import { ScriptedProvider } from "@rein/models";
import { defaultJobOptions, type ReinRuntime } from "@rein/runtime";
import { closeWorker } from "@rein/consumer";
import { buildTooling, type RunningRoles, startRoles, submitGoal } from "@rein/orchestrator";
import { Queue, Worker } from "bullmq";
import { echoTool } from "@rein/tools/testing";
import type { BenchEnv } from "./bench-env.ts";
import { echoGoal, echoPlannerScript, echoWorkerScript, noopGoal, noopWorkerScript, plannerScript } from "./scripts.ts";
import { waitUntil } from "./wait-until.ts";

const JOB_KEY = /:(control|plan|step|evaluate):[^:]+$/;

export interface Footprint {
  /** MEMORY USAGE summed over every key the finished run left (state, trace, blobs, jobs, artifacts...). */
  runBytes: number;
  /** The BullMQ job hashes among them. */
  jobs: number;
  /** The same number of completed no-op jobs in a bare BullMQ queue. */
  rawJobBytes: number;
  status: string;
  /** Each key's bytes, named by what it holds with the prefix and run id taken out. */
  keys: { kind: string; bytes: number }[];
}

/** What the measured run does: `steps` no-op steps, or one step of `echoTurns` echo turns. */
export type FootprintRun = { steps: number } | { echoTurns: number };

/** Runs one goal through every role, then weighs what it left in Redis. */
export async function redisFootprint(env: BenchEnv, run: FootprintRun): Promise<Footprint> {
  const runtimes = [env.runtime(), env.runtime(), env.runtime(), env.runtime()] as const;
  const [control, plan, step, evaluate] = runtimes;
  const echo = "echoTurns" in run;
  const tooling = await buildTooling(step, echo ? [echoTool] : [], new ApprovalVerifier(generateKeyPair().publicKey));
  const planner = "steps" in run ? plannerScript(run.steps) : echoPlannerScript(run.echoTurns);
  const worker = "steps" in run ? noopWorkerScript : echoWorkerScript([run.echoTurns]);
  const roles: RunningRoles[] = [
    startRoles(control, { roles: ["control"], packetPrivateKey: env.keys.privateKey }),
    startRoles(plan, { roles: ["plan"], providers: { planner: new ScriptedProvider(planner, { name: "scripted-planner" }) } }),
    startRoles(step, {
      roles: ["step"],
      packetPublicKey: env.keys.publicKey,
      executor: tooling.executor,
      providers: { worker: new ScriptedProvider(worker, { name: "scripted-worker" }) },
    }),
    startRoles(evaluate, { roles: ["evaluate"], providers: { judge: new ScriptedProvider({}, { name: "scripted-judge" }) } }),
  ];
  try {
    const { runId } = await submitGoal(control, echo ? echoGoal : noopGoal, { knownTools: tooling.registry.names() });
    await waitUntil(async () => isTerminal((await control.runs.require(runId)).status), 120_000);
    // Finished means retired: the run's end effects (TTLs, working copies deleted) run after its last state is written, forgetting its deadline last.
    await waitUntil(async () => (await control.redis.zscore(control.keys.runDeadlines(), runId)) === null, 30_000);
    const state = await control.runs.require(runId);
    const keys = await runKeys(control, runId);
    const weighed = await Promise.all(
      keys.map(async (key) => ({ kind: kindOf(key, control.config.prefix, runId), bytes: await memoryUsage(control, [key]) })),
    );
    const runBytes = weighed.reduce((sum, key) => sum + key.bytes, 0);
    const jobs = keys.filter((key) => JOB_KEY.test(key)).length;
    const status = `${state.status} after ${state.steps.length} steps${state.stopReason ? ` (${state.stopReason})` : ""}`;
    return { runBytes, jobs, rawJobBytes: await rawJobBytes(control, jobs), status, keys: weighed };
  } finally {
    for (const running of roles) await running.close();
    await tooling.close();
  }
}

/** A key without the bench's prefix and the run id, so keys of one kind read alike. */
function kindOf(key: string, prefix: string, runId: string): string {
  return key.slice(prefix.length + 1).replaceAll(runId, "<run>");
}

async function runKeys(runtime: ReinRuntime, runId: string): Promise<string[]> {
  const keys = await scan(runtime, `${runtime.config.prefix}:*${runId}*`);
  for (const key of await scan(runtime, `${runtime.config.prefix}:artifact:*`)) {
    if ((await runtime.redis.hget(key, "runId")) === runId) keys.push(key);
  }
  return keys;
}

async function scan(runtime: ReinRuntime, pattern: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await runtime.redis.scan(cursor, "MATCH", pattern, "COUNT", 1000);
    cursor = next;
    found.push(...keys);
  } while (cursor !== "0");
  return found;
}

async function memoryUsage(runtime: ReinRuntime, keys: readonly string[]): Promise<number> {
  let bytes = 0;
  // SAMPLES 0 weighs every element of a hash or stream, not an estimate from a few.
  for (const key of keys) bytes += Number((await runtime.redis.call("MEMORY", "USAGE", key, "SAMPLES", "0")) ?? 0);
  return bytes;
}

/** The floor: `count` completed no-op jobs in a bare BullMQ queue with Rein's retention options. */
async function rawJobBytes(runtime: ReinRuntime, count: number): Promise<number> {
  const options = { connection: runtime.connection, prefix: runtime.keys.queuePrefix() };
  const queue = new Queue("raw-footprint", { ...options, defaultJobOptions });
  const worker = new Worker("raw-footprint", async () => {}, options);
  try {
    const jobs = await queue.addBulk(
      Array.from({ length: count }, (_, index) => ({ name: "noop", data: { index }, opts: { jobId: `raw-footprint-${index}` } })),
    );
    await waitUntil(async () => (await queue.getCompletedCount()) >= count);
    return memoryUsage(
      runtime,
      jobs.map((job) => `${runtime.keys.queuePrefix()}:raw-footprint:${job.id}`),
    );
  } finally {
    await closeWorker(worker);
    await queue.close();
  }
}
