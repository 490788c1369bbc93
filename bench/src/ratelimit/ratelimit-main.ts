/**
 * `pnpm --filter @rein/bench ratelimit`: step workers in several processes
 * against one provider account whose emulator enforces a rate limit
 * (requests and input tokens per minute, token buckets, 429 with the
 * documented headers past them), once with the fleet's shared rate budget
 * (`providers.<name>.limits`) and once without it. Reports, for each: the
 * requests the emulator refused (all, and after the first minute), failed
 * worker model calls, runs done, waits, and how long the load took.
 */
import { rm } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import { parseArgs } from "node:util";
import type { RunState } from "@rein/contracts/run";
import { knownToolNames, submitGoal } from "@rein/orchestrator";
import { EmulatedRateLimit, type FakeServer, startScriptedWireServer } from "@rein/models/testing";
import { renderTable } from "../report.ts";
import { measure, percentile, type Measure } from "../measure.ts";
import { noopGoal, noopWorkerScript, plannerScript } from "../scripts.ts";
import { hasSettled } from "../chaos/chaos-checks.ts";
import { Deployment } from "../chaos/deployment.ts";
import { REDIS_WAIT_MS, within } from "../chaos/within.ts";

const { values } = parseArgs({
  options: {
    runs: { type: "string" },
    processes: { type: "string" },
    concurrency: { type: "string" },
    rpm: { type: "string" },
    itpm: { type: "string" },
    "timeout-s": { type: "string" },
    only: { type: "string" },
  },
});
const runs = Number(values.runs ?? 150);
const processes = Number(values.processes ?? 4);
const concurrency = Number(values.concurrency ?? 5);
const rpm = Number(values.rpm ?? 60);
const itpm = Number(values.itpm ?? 90_000);
const timeoutMs = Number(values["timeout-s"] ?? 600) * 1_000;
const model = "claude-sonnet-5-5";
const log = (line: string) => process.stderr.write(`ratelimit: ${line}\n`);
// The emulator takes any key; the variable only has to be set for the adapter to start.
process.env.BENCH_EMULATOR_KEY = "sk-bench";

interface Outcome {
  label: string;
  measures: Measure[];
  ok: boolean;
}

async function scenario(limited: boolean): Promise<Outcome> {
  const label = limited ? "with the shared limiter" : "without it";
  const emulated = new EmulatedRateLimit({ format: "anthropic", requestsPerMinute: rpm, inputTokensPerMinute: itpm });
  const server: FakeServer = await startScriptedWireServer({
    format: "anthropic",
    role: "worker",
    script: noopWorkerScript,
    model,
    wrap: (respond) => emulated.wrap(respond),
  });
  const deployment = await Deployment.start({
    lockMs: 30_000,
    stepConcurrency: concurrency,
    graceMs: 1_000,
    script: plannerScript(1),
    config: (paths, prefix) => ({
      prefix,
      workspaceRoot: paths.workspaceRoot,
      keysDir: paths.keysDir,
      providers: {
        scripted: { kind: "scripted", script: paths.script, maxRetries: 0 },
        emulator: {
          kind: "anthropic",
          baseURL: server.baseURL,
          apiKeyEnv: "BENCH_EMULATOR_KEY",
          ...(limited ? { limits: { requestsPerMinute: rpm, inputTokensPerMinute: itpm } } : {}),
        },
      },
      roles: {
        planner: { provider: "scripted", model: "scripted" },
        evaluator: { provider: "scripted", model: "scripted" },
        judge: { provider: "scripted", model: "scripted" },
        worker: { provider: "emulator", model, maxTokens: 256 },
      },
    }),
  });
  const { runtime } = deployment;
  let ended = false;
  try {
    await deployment.startController();
    await deployment.startPlanAndEvaluate();
    await Promise.all(Array.from({ length: processes }, () => deployment.startStepWorker()));
    const knownTools = knownToolNames(runtime.config, []);
    const started = Date.now();
    const submitted: string[] = [];
    for (let index = 0; index < runs; index += 1) submitted.push((await submitGoal(runtime, noopGoal, { knownTools })).runId);
    log(`${label}: submitted ${runs} runs to ${processes} step-worker processes of ${concurrency}`);
    const states = new Map<string, RunState>();
    while (states.size < runs && Date.now() < started + timeoutMs) {
      for (const runId of submitted) {
        if (states.has(runId)) continue;
        const state = await within(`reading run ${runId}`, REDIS_WAIT_MS, runtime.runs.require(runId));
        if (hasSettled(state)) states.set(runId, state);
      }
      log(`${label}: ${states.size}/${runs} ended, ${emulated.accepted.length} requests served, ${emulated.refused.length} refused`);
      if (states.size < runs) await delay(5_000);
    }
    ended = states.size === runs;
    const seconds = (Math.max(...[...states.values()].map((state) => Date.parse(state.updatedAt))) - started) / 1000;
    let failedCalls = 0;
    let waits = 0;
    const waited: number[] = [];
    for (const runId of submitted) {
      for (const event of await runtime.trace.read(runId)) {
        if (event.kind === "model.failed") failedCalls += 1;
        if (event.kind === "model.waited") {
          waits += 1;
          waited.push(event.durationMs ?? 0);
        }
      }
    }
    const afterFirstMinute = emulated.refused.filter((at) => at > started + 60_000).length;
    const done = [...states.values()].filter((state) => state.status === "done").length;
    const measures = [
      measure("429s after the first minute", afterFirstMinute, "", null, limited ? { of: "value", op: "<=", limit: 0 } : undefined),
      measure("429s in all", emulated.refused.length, "", null),
      measure("requests served", emulated.accepted.length, "", null),
      measure("failed worker model calls", failedCalls, "", null, limited ? { of: "value", op: "<=", limit: 0 } : undefined),
      measure("runs done", done, "", null, limited ? { of: "value", op: ">=", limit: runs } : undefined),
      measure("runs ended", states.size, "", null),
      measure("calls that waited", waits, "", null),
      measure("wait p50", waited.length > 0 ? percentile(waited, 50) / 1000 : 0, "s", null),
      measure("wait p95", waited.length > 0 ? percentile(waited, 95) / 1000 : 0, "s", null),
      measure("served per minute after the first", perMinuteAfterFirst(emulated.accepted, started), "/min", null),
      measure("load took", seconds, "s", null),
    ];
    return { label, measures, ok: !limited || measures.every((entry) => entry.met !== false) };
  } finally {
    for (const note of await deployment.stop()) log(`stop: ${note}`);
    await server.stop();
    if (ended) await rm(deployment.dir, { recursive: true, force: true });
    else log(`${label}: logs kept in ${deployment.dir}`);
  }
}

function perMinuteAfterFirst(accepted: readonly number[], started: number): number {
  const later = accepted.filter((at) => at > started + 60_000);
  if (later.length < 2) return later.length;
  return (later.length / ((Math.max(...later) - (started + 60_000)) / 1000)) * 60;
}

const outcomes: Outcome[] = [];
if (values.only !== "without") outcomes.push(await scenario(true));
if (values.only !== "with") outcomes.push(await scenario(false));
process.stdout.write(
  `ratelimit: ${runs} one-step runs, ${processes} step-worker processes × ${concurrency}, emulator at ${rpm} requests and ${itpm} input tokens per minute\n`,
);
for (const outcome of outcomes) process.stdout.write(`\n${outcome.label}\n${renderTable(outcome.measures)}\n`);
process.exit(outcomes.every((outcome) => outcome.ok) ? 0 : 1);
