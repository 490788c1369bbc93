/**
 * `npm run load`: 1,000 one-step runs submitted at once to Rein deployed as
 * separate role processes on a private Redis. Reports, beside issue 32's
 * targets: queue jobs per run, Redis commands (and the reads that carried
 * them) per run, runs per Redis
 * CPU-second (beside its floor: the same figure were a run only its queue
 * jobs, from as many no-op BullMQ jobs on the same Redis), and the dispatch
 * cycle's p50 against a raw BullMQ round trip measured on the same Redis;
 * also runs/s, submit-to-end latency and Redis bytes per run. With `--model-latency-ms` the worker model answers after
 * that delay, so runs pile up in flight (`--runs 10000`; each step worker
 * then takes 1,000 steps at once unless `--step-concurrency` says): the step
 * wait (ready to started) and what Redis and the controller hold per run in
 * flight are reported. `--shards N` splits the queues
 * (config `queues.shards`); `--steps N` plans N no-op steps per run (the
 * targets are for one). `--commands` adds Redis's calls and time by
 * command name, `--scripts` its time by Lua script (SLOWLOG), `--monitor
 * FILE` every command and the commands per run by script. Goals arrive
 * as `POST /runs` on `rein serve --http` (`--submit api`, the default) or
 * through `submitGoal` from this process (`--submit library`). Every wait
 * is bounded.
 */
import { randomBytes } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import { parseArgs } from "node:util";
import type { RunState } from "@rein/contracts/run";
import { knownToolNames, submitGoal } from "@rein/orchestrator";
import { connectRedis } from "@rein/runtime";
import { withBenchEnv } from "../bench-env.ts";
import { dispatchCycles } from "../dispatch-cycle.ts";
import { type Measure, measure, percentile } from "../measure.ts";
import { renderTable } from "../report.ts";
import { noopGoal, noopWorkerScript, plannerScript } from "../scripts.ts";
import { hasSettled } from "./chaos-checks.ts";
import { OUTSIDE_SCRIPTS, recordCommands } from "./command-record.ts";
import { Deployment } from "./deployment.ts";
import { queueJobsCost } from "./queue-floor.ts";
import { perRun, redisWork, usedMemory } from "./redis-work.ts";
import { recordScriptCosts } from "./script-costs.ts";
import { REDIS_BATCH_WAIT_MS, REDIS_WAIT_MS, within } from "./within.ts";

const { values } = parseArgs({
  options: {
    runs: { type: "string" },
    "step-workers": { type: "string" },
    "timeout-s": { type: "string" },
    "no-dispatch": { type: "boolean" },
    commands: { type: "boolean" },
    monitor: { type: "string" },
    scripts: { type: "boolean" },
    "model-latency-ms": { type: "string" },
    "step-concurrency": { type: "string" },
    shards: { type: "string" },
    steps: { type: "string" },
    submit: { type: "string" },
  },
});
/** How goals arrive: `api`, `POST /runs` on `rein serve --http` (taken in by the controller's process); `library`, submitGoal from this process, through the control queue. */
const submitVia = values.submit ?? "api";
if (submitVia !== "api" && submitVia !== "library") throw new Error(`--submit ${submitVia}: expected api or library`);
const runs = Number(values.runs ?? 1_000);
const stepWorkers = Number(values["step-workers"] ?? 2);
/** No-op steps per run: the targets are for one, more shows what each further step costs. */
const stepsPerRun = Number(values.steps ?? 1);
/** The worker model's answer time: with it, runs stay in flight long enough to pile up. */
const modelLatencyMs = Number(values["model-latency-ms"] ?? 0);
// A slow model's steps wait in their calls, not on a CPU: slots enough that the load measures Redis and the controller, not a
// small fleet. Runs are planned at ~200/s here and each step holds its slot for the model's latency: 2 × 300 slots were too few.
const stepConcurrency = Number(values["step-concurrency"] ?? (modelLatencyMs > 0 ? 1000 : 8));
const timeoutMs = Number(values["timeout-s"] ?? 600) * 1_000;
const log = (line: string) => process.stderr.write(`load: ${line}\n`);

const deployment = await Deployment.start({
  lockMs: 30_000,
  stepConcurrency,
  graceMs: 1_000,
  script: {
    ...plannerScript(stepsPerRun),
    ...(modelLatencyMs > 0
      ? { worker: [{ turns: [{ text: "Nothing to do.", delayMs: modelLatencyMs }], repeatLast: true }] }
      : noopWorkerScript),
  },
  config: (paths, prefix) => ({
    prefix,
    workspaceRoot: paths.workspaceRoot,
    keysDir: paths.keysDir,
    providers: { scripted: { kind: "scripted", script: paths.script, maxRetries: 0 } },
    queues: { shards: Number(values.shards ?? 1) },
  }),
});
const { runtime } = deployment;
const admin = deployment.redis.admin();
const queuePrefixes = runtime.keys.queuePrefixes();
let exitCode = 1;
let allEnded = false;
try {
  const token = randomBytes(24).toString("hex");
  const { role: controller, url: apiUrl } =
    submitVia === "api" ? await deployment.startControllerWithApi(token) : { role: await deployment.startController(), url: "" };
  await deployment.startPlanAndEvaluate();
  for (let index = 0; index < stepWorkers; index += 1) await deployment.startStepWorker();
  const ended = await watchRunEnds();
  const monitor = values.monitor === undefined ? undefined : await recordCommands(deployment.redis.url, values.monitor);
  const scripts = values.scripts ? await recordScriptCosts(admin) : undefined;
  const bytesBefore = await usedMemory(admin);
  const before = await redisWork(admin, queuePrefixes);
  const knownTools = knownToolNames(runtime.config, []);
  const submitted = new Set<string>();
  const rssBefore = await residentBytes(controller.pid);
  /** The most runs in flight at a sample, and the most Redis and the controller held at any sample. */
  const peak = { inFlight: 0, redisBytes: bytesBefore, controllerBytes: rssBefore };
  const sample = async () => {
    const inFlight = submitted.size - [...submitted].filter((runId) => ended.ids.has(runId)).length;
    peak.inFlight = Math.max(peak.inFlight, inFlight);
    peak.redisBytes = Math.max(peak.redisBytes, await usedMemory(admin));
    peak.controllerBytes = Math.max(peak.controllerBytes, await residentBytes(controller.pid));
  };
  const started = Date.now();
  // Submitted 50 at a time, as many clients would: one connection, requests in flight together.
  for (let offset = 0; offset < runs; offset += 50) {
    await within(
      "submitting 50 goals",
      REDIS_BATCH_WAIT_MS,
      Promise.all(
        Array.from({ length: Math.min(50, runs - offset) }, async () => {
          submitted.add(submitVia === "api" ? await postRun(apiUrl, token) : (await submitGoal(runtime, noopGoal, { knownTools })).runId);
        }),
      ),
    );
    if (offset % 1_000 === 0) await sample();
  }
  log(`submitted ${runs} runs in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  // Ends are heard on the run-ended channel, so the wait adds no Redis command per run to what is measured.
  const deadline = started + timeoutMs;
  while ([...submitted].some((runId) => !ended.ids.has(runId)) && Date.now() < deadline) {
    log(`${[...submitted].filter((runId) => ended.ids.has(runId)).length}/${runs} ended`);
    await sample();
    await delay(1_000);
  }
  const after = await redisWork(admin, queuePrefixes);
  const scriptCommands = await monitor?.finish(ended.ids.size);
  const scriptCosts = await scripts?.finish(ended.ids.size);
  const bytesPerRun = ((await usedMemory(admin)) - bytesBefore) / runs;
  await ended.close();
  const states = new Map<string, RunState>();
  for (const runId of submitted) {
    const state = await within(`reading run ${runId}`, REDIS_WAIT_MS, runtime.runs.require(runId));
    if (hasSettled(state)) states.set(runId, state);
  }
  // The run's last write is its end: updatedAt, from the controller's clock (same machine).
  const ends = [...states.values()].map((state) => Date.parse(state.updatedAt));
  const seconds = (Math.max(...ends) - started) / 1000;
  const latencies = [...states.values()].map((state) => Date.parse(state.updatedAt) - Date.parse(state.createdAt));
  const done = [...states.values()].filter((state) => state.status === "done").length;
  const finished = Math.max(1, states.size);
  const jobs = perRun(before.jobs, after.jobs, finished);
  const jobsPerRun = [...jobs.values()].reduce((sum, value) => sum + value, 0);
  const commandsPerRun = (after.commands - before.commands) / finished;
  const cpuSeconds = after.cpuSeconds - before.cpuSeconds;
  log("measuring the Redis CPU of as many raw BullMQ jobs as the runs had (at most 3,000)");
  const floorJobs = Math.min(3_000, Math.round(jobsPerRun * finished));
  const floor = await withBenchEnv(deployment.redis.url, "floor", (env) => queueJobsCost(env, admin, floorJobs));
  // The floor's figures were a run only its queue jobs.
  const floorRuns = floorJobs / jobsPerRun;
  const measures: Measure[] = [
    measure("queue jobs per run", jobsPerRun, "", null, { of: "value", op: "<=", limit: 5 }),
    ...[...jobs].map(([queue, count]) => measure(`  ${queue}`, count, "", null)),
    measure("Redis commands per run", commandsPerRun, "", null, { of: "value", op: "<=", limit: 250 }),
    measure("  Redis reads per run (round trips)", (after.reads - before.reads) / finished, "", floor.reads / floorRuns),
    measure("runs per Redis CPU-second", states.size / cpuSeconds, "", floorRuns / floor.cpuSeconds, {
      of: "value",
      op: ">=",
      limit: 700,
    }),
  ];
  if (!values["no-dispatch"]) {
    log("measuring the dispatch cycle against a raw BullMQ round trip on the same Redis");
    const cycles = await withBenchEnv(deployment.redis.url, "dispatch", (env) => dispatchCycles(env, 10, 20, 20));
    measures.push(
      measure("dispatch cycle p50", percentile(cycles.rein, 50), "ms", percentile(cycles.raw, 50), { of: "ratio", op: "<=", limit: 2.5 }),
      measure("  two raw queue hops p50 (no Rein work)", percentile(cycles.relay, 50), "ms", percentile(cycles.raw, 50)),
    );
  }
  const waits = await stepWaits([...states.keys()]);
  measures.push(
    measure("step wait p50 (ready to started)", percentile(waits, 50), "ms", null),
    measure("step wait p95", percentile(waits, 95), "ms", null),
    measure("most runs in flight", peak.inFlight, "", null),
    measure("Redis bytes per run in flight (peaks)", (peak.redisBytes - bytesBefore) / Math.max(1, peak.inFlight) / 1024, "KB", null),
    measure("controller RSS per run in flight (peaks)", (peak.controllerBytes - rssBefore) / Math.max(1, peak.inFlight) / 1024, "KB", null),
    measure("runs/s", states.size / seconds, "/s", null),
    measure("latency p50 (submit to end)", percentile(latencies, 50) / 1000, "s", null),
    measure("latency p95", percentile(latencies, 95) / 1000, "s", null),
    measure("Redis bytes per run", bytesPerRun / 1024, "KB", null),
    measure("Redis CPU, share of one core", (cpuSeconds / seconds) * 100, "%", null),
  );
  process.stdout.write(
    `load: ${runs} runs of ${stepsPerRun} step(s) submitted ${submitVia === "api" ? "with POST /runs" : "with submitGoal"}, ${states.size} ended (${done} done) in ${seconds.toFixed(1)} s with ${stepWorkers} step-worker process(es) of concurrency ${stepConcurrency}, model latency ${modelLatencyMs} ms\n${renderTable(measures)}\n`,
  );
  if (values.commands) {
    const top = [...perRun(before.byCommand, after.byCommand, finished)].filter(([, count]) => count >= 0.5).sort((a, b) => b[1] - a[1]);
    process.stdout.write(`commands per run by name: ${top.map(([name, count]) => `${name} ${count.toFixed(1)}`).join(", ")}\n`);
    const usec = [...perRun(before.usecByCommand, after.usecByCommand, finished)]
      .filter(([, value]) => value >= 5)
      .sort((a, b) => b[1] - a[1]);
    process.stdout.write(`Redis µs per run by command: ${usec.map(([name, value]) => `${name} ${value.toFixed(0)}`).join(", ")}\n`);
  }
  if (scriptCosts) {
    const rows = scriptCosts.map(
      (cost) =>
        `  ${cost.name}: ${cost.callsPerRun.toFixed(2)} calls × ${cost.microsPerCall.toFixed(0)} µs = ${(cost.callsPerRun * cost.microsPerCall).toFixed(0)} µs per run`,
    );
    process.stdout.write(`Redis time per run by script (SLOWLOG at threshold 0, which itself slows Redis):\n${rows.join("\n")}\n`);
  }
  if (scriptCommands) {
    const rows = scriptCommands.map((entry) =>
      entry.name === OUTSIDE_SCRIPTS
        ? `  ${entry.name}: ${entry.callsPerRun.toFixed(1)} per run`
        : `  ${entry.name}: ${entry.callsPerRun.toFixed(2)} calls × ${entry.commandsPerCall.toFixed(1)} = ${(entry.callsPerRun * entry.commandsPerCall).toFixed(1)} per run`,
    );
    process.stdout.write(`Redis commands per run by script, the call and what the script ran (MONITOR):\n${rows.join("\n")}\n`);
  }
  allEnded = states.size === runs;
  exitCode = allEnded && measures.every((entry) => entry.met !== false) ? 0 : 1;
  if (!allEnded) log(`${runs - states.size} run(s) did not end within ${timeoutMs / 1000} s; logs kept in ${deployment.dir}`);
} finally {
  for (const note of await deployment.stop()) log(`stop: ${note}`);
  if (allEnded) await rm(deployment.dir, { recursive: true, force: true });
}
process.exit(exitCode);

/** Submits the no-op goal as a client of the HTTP API does; its run's id. */
async function postRun(apiUrl: string, token: string): Promise<string> {
  const response = await fetch(`${apiUrl}/runs`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(noopGoal),
  });
  const body = (await response.json()) as { runId?: string; error?: unknown };
  if (response.status !== 202 || typeof body.runId !== "string")
    throw new Error(`POST /runs answered ${response.status}: ${JSON.stringify(body)}`);
  return body.runId;
}

/**
 * From each run's trace, ms from its first step's dispatch (the controller
 * decided it, its job then added) to a worker starting it: the queue's wait
 * for a free worker slot, read after the load so it adds nothing to it.
 */
async function stepWaits(runIds: readonly string[]): Promise<number[]> {
  const waits: number[] = [];
  for (const runId of runIds) {
    const events = await within(`reading run ${runId}'s trace`, REDIS_WAIT_MS, runtime.trace.read(runId));
    const dispatched = events.find((event) => event.kind === "step.dispatched");
    const started = events.find((event) => event.kind === "step.started" && event.stepId === dispatched?.stepId);
    if (dispatched && started) waits.push(Date.parse(started.ts) - Date.parse(dispatched.ts));
  }
  return waits.length > 0 ? waits : [0];
}

/** A process's resident memory (VmRSS) in bytes, 0 where /proc does not say. */
async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** The runs whose end was published on the run-ended channel, heard on a connection of the suite's own. */
async function watchRunEnds(): Promise<{ ids: Set<string>; close(): Promise<void> }> {
  const ids = new Set<string>();
  const subscriber = connectRedis(deployment.redis.url);
  subscriber.on("message", (_channel: string, message: string) => {
    ids.add((JSON.parse(message) as { runId: string }).runId);
  });
  await subscriber.subscribe(runtime.keys.runEnded());
  return { ids, close: async () => void (await subscriber.quit()) };
}
