/**
 * A worker process of the throughput measure, started by the bench:
 * BENCH_MODE=raw runs a bare BullMQ worker with a no-op processor on
 * BENCH_QUEUE; BENCH_MODE=rein runs Rein's step role with a no-op scripted
 * model. Both at BENCH_CONCURRENCY. Prints "ready", stops on SIGTERM.
 */
import { ApprovalVerifier, createRuntime, generateKeyPair, publicKeyFromEnv, ReinConfig, ScriptedProvider } from "@rein/core";
import { buildTooling, startRoles } from "@rein/orchestrator";
import { Worker } from "bullmq";
import { noopWorkerScript } from "./scripts.ts";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`throughput-worker needs ${name}`);
  return value;
};

const runtime = createRuntime(ReinConfig.parse({ redisUrl: env("REIN_REDIS_URL"), prefix: env("REIN_PREFIX"), workspaceRoot: env("REIN_WORKSPACE_ROOT") }));
const concurrency = Number(env("BENCH_CONCURRENCY"));
let close: () => Promise<void>;
if (env("BENCH_MODE") === "raw") {
  const worker = new Worker(env("BENCH_QUEUE"), async () => {}, { connection: runtime.connection, prefix: runtime.config.prefix, concurrency });
  await worker.waitUntilReady();
  close = () => worker.close();
} else {
  const tooling = await buildTooling(runtime, [], new ApprovalVerifier(generateKeyPair().publicKey));
  const running = startRoles(runtime, {
    roles: ["step"],
    packetPublicKey: publicKeyFromEnv(),
    executor: tooling.executor,
    providers: { worker: new ScriptedProvider(noopWorkerScript, { name: "scripted-worker" }) },
    concurrency,
  });
  await Promise.all(running.workers.map((worker) => worker.waitUntilReady()));
  close = async () => {
    await running.close();
    await tooling.close();
  };
}
process.once("SIGTERM", () => {
  void close().then(async () => {
    await runtime.close();
    process.exit(0);
  });
});
process.stdout.write("ready\n");
