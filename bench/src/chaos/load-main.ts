/**
 * `pnpm load`: 1,000 one-step runs submitted at once to Rein deployed as
 * separate role processes on a private Redis. Reports runs/s, submit-to-end
 * latency p50/p95 and Redis bytes per finished run. Every wait is bounded.
 */
import { rm } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import { parseArgs } from "node:util";
import type { RunState } from "@rein/contracts/run";
import { knownToolNames, submitGoal } from "@rein/orchestrator";
import { noopGoal, noopWorkerScript, plannerScript } from "../scripts.ts";
import { hasSettled } from "./chaos-checks.ts";
import { Deployment } from "./deployment.ts";
import { REDIS_BATCH_WAIT_MS, REDIS_WAIT_MS, within } from "./within.ts";

const { values } = parseArgs({
  options: { runs: { type: "string" }, "step-workers": { type: "string" }, "timeout-s": { type: "string" } },
});
const runs = Number(values.runs ?? 1_000);
const stepWorkers = Number(values["step-workers"] ?? 2);
const timeoutMs = Number(values["timeout-s"] ?? 600) * 1_000;
const log = (line: string) => process.stderr.write(`load: ${line}\n`);

const deployment = await Deployment.start({
  lockMs: 30_000,
  stepConcurrency: 8,
  graceMs: 1_000,
  script: { ...plannerScript(1), ...noopWorkerScript },
  config: (paths, prefix) => ({
    prefix,
    workspaceRoot: paths.workspaceRoot,
    keysDir: paths.keysDir,
    providers: { scripted: { kind: "scripted", script: paths.script, maxRetries: 0 } },
  }),
});
const { runtime } = deployment;
let exitCode = 1;
try {
  await deployment.startController();
  await deployment.startPlanAndEvaluate();
  for (let index = 0; index < stepWorkers; index += 1) await deployment.startStepWorker();
  const bytesBefore = await usedMemory(deployment);
  const before = await redisWork(deployment);
  const knownTools = knownToolNames(runtime.config, []);
  const submittedAt = new Map<string, number>();
  const started = Date.now();
  // Submitted 50 at a time, as many clients would: one connection, requests in flight together.
  for (let offset = 0; offset < runs; offset += 50) {
    await within(
      "submitting 50 goals",
      REDIS_BATCH_WAIT_MS,
      Promise.all(
        Array.from({ length: Math.min(50, runs - offset) }, async () => {
          const { runId } = await submitGoal(runtime, noopGoal, { knownTools });
          submittedAt.set(runId, Date.now());
        }),
      ),
    );
  }
  log(`submitted ${runs} runs in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const ended = new Map<string, RunState>();
  const deadline = started + timeoutMs;
  while (ended.size < runs && Date.now() < deadline) {
    for (const runId of submittedAt.keys()) {
      if (ended.has(runId)) continue;
      const state = await within(`reading run ${runId}`, REDIS_WAIT_MS, runtime.runs.get(runId));
      if (state && hasSettled(state)) ended.set(runId, state);
    }
    log(`${ended.size}/${runs} ended`);
    if (ended.size < runs) await delay(1_000);
  }
  const lastEnd = Math.max(...[...ended.values()].map((state) => Date.parse(state.updatedAt)));
  const seconds = (lastEnd - started) / 1000;
  // The run's last write is its end: updatedAt, from the controller's clock (same machine).
  const latencies = [...ended].map(([runId, state]) => Date.parse(state.updatedAt) - (submittedAt.get(runId) ?? 0)).sort((a, b) => a - b);
  const done = [...ended.values()].filter((state) => state.status === "done").length;
  const bytesPerRun = ((await usedMemory(deployment)) - bytesBefore) / Math.max(1, ended.size);
  const after = await redisWork(deployment);
  const redisCpuShare = (after.cpuSeconds - before.cpuSeconds) / seconds;
  process.stdout.write(
    [
      `load: ${runs} runs, ${ended.size} ended (${done} done) in ${seconds.toFixed(1)} s with ${stepWorkers} step-worker process(es)`,
      `  runs/s          ${(ended.size / seconds).toFixed(1)}`,
      `  latency p50     ${(percentile(latencies, 0.5) / 1000).toFixed(1)} s (submit to end)`,
      `  latency p95     ${(percentile(latencies, 0.95) / 1000).toFixed(1)} s`,
      `  Redis bytes/run ${(bytesPerRun / 1024).toFixed(1)} KB (used_memory after, minus before, over finished runs)`,
      `  Redis commands/run ${((after.commands - before.commands) / Math.max(1, ended.size)).toFixed(0)}`,
      `  Redis CPU       ${(redisCpuShare * 100).toFixed(0)}% of one core (its main thread is the ceiling of one Redis)`,
      "",
    ].join("\n"),
  );
  exitCode = ended.size === runs ? 0 : 1;
  if (exitCode !== 0) log(`${runs - ended.size} run(s) did not end within ${timeoutMs / 1000} s; logs kept in ${deployment.dir}`);
} finally {
  for (const note of await deployment.stop()) log(`stop: ${note}`);
  if (exitCode === 0) await rm(deployment.dir, { recursive: true, force: true });
}
process.exit(exitCode);

function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

/** Redis's own CPU seconds (user + sys) and commands processed so far. */
async function redisWork(deployment: Deployment): Promise<{ cpuSeconds: number; commands: number }> {
  const info = await deployment.redis.admin().info();
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return { cpuSeconds: field("used_cpu_user") + field("used_cpu_sys"), commands: field("total_commands_processed") };
}

async function usedMemory(deployment: Deployment): Promise<number> {
  const info = await deployment.redis.admin().info("memory");
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
}
