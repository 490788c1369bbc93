/**
 * One process of the bench's deployments, started by the bench with
 * `spawnBenchChild`: BENCH_ROLE=raw runs a bare BullMQ worker with a no-op
 * processor on BENCH_QUEUE; relay, one whose processor adds the job's data
 * as a job of the same id to BENCH_NEXT_QUEUE; control, plan, step or
 * evaluate runs that Rein role with scripted models (a planner of
 * BENCH_STEPS no-op steps, a no-op worker, a judge never asked). Prints
 * "ready", answers a "cpu" line with its user+system CPU so far in µs,
 * stops on SIGTERM.
 */
import { createInterface } from "node:readline";
import { ApprovalVerifier, generateKeyPair, loadPrivateKey, loadPublicKey } from "@rein/signing";
import { ScriptedProvider } from "@rein/models";
import { createRuntime, ReinConfig } from "@rein/runtime";
import { closeWorker } from "@rein/consumer";
import { buildTooling, type RoleName, startRoles } from "@rein/orchestrator";
import { Queue, Worker } from "bullmq";
import { noopWorkerScript, plannerScript } from "./scripts.ts";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`role-process needs ${name}`);
  return value;
};

// Diagnostics: bench:dispatch with REIN_BENCH_TIMELINE records every Redis command of every process.
if (process.env.REIN_BENCH_TIMELINE) (await import("./command-timeline.ts")).recordCommands(process.env.REIN_BENCH_TIMELINE);

const runtime = createRuntime(
  ReinConfig.parse({ redisUrl: env("REIN_REDIS_URL"), prefix: env("REIN_PREFIX"), workspaceRoot: env("REIN_WORKSPACE_ROOT") }),
);
const concurrency = Number(env("BENCH_CONCURRENCY"));
const role = env("BENCH_ROLE");
let close: () => Promise<void>;
if (role === "raw" || role === "relay") {
  const options = { connection: runtime.connection, prefix: runtime.keys.queuePrefix() };
  const next = role === "relay" ? new Queue(env("BENCH_NEXT_QUEUE"), options) : undefined;
  const worker = new Worker(
    env("BENCH_QUEUE"),
    async (job) => {
      await next?.add(job.name, job.data, { jobId: job.id });
    },
    { ...options, concurrency },
  );
  await worker.waitUntilReady();
  close = async () => {
    await closeWorker(worker);
    await next?.close();
  };
} else {
  const tooling = role === "step" ? await buildTooling(runtime, [], new ApprovalVerifier(generateKeyPair().publicKey)) : undefined;
  const running = startRoles(runtime, {
    roles: [role as RoleName],
    packetPrivateKey: role === "control" ? loadPrivateKey("packet", {}) : undefined,
    packetPublicKey: role === "step" ? loadPublicKey("packet", {}) : undefined,
    executor: tooling?.executor,
    providers: {
      planner: new ScriptedProvider(plannerScript(Number(process.env.BENCH_STEPS ?? 1)), { name: "scripted-planner" }),
      worker: new ScriptedProvider(noopWorkerScript, { name: "scripted-worker" }),
      judge: new ScriptedProvider({}, { name: "scripted-judge" }),
    },
    concurrency,
  });
  await Promise.all(running.workers.map((worker) => worker.waitUntilReady()));
  close = async () => {
    await running.close();
    await tooling?.close();
  };
}
process.once("SIGTERM", () => {
  void close().then(async () => {
    await runtime.close();
    process.exit(0);
  });
});
createInterface({ input: process.stdin }).on("line", (line) => {
  if (line !== "cpu") return;
  const { user, system } = process.cpuUsage();
  process.stdout.write(`${user + system}\n`);
});
process.stdout.write("ready\n");
