/**
 * `npm run load:cluster`: one-step runs submitted at once to Rein's role
 * processes on a Redis Cluster of masters only, once per master count
 * (`--masters 1,3`), with the queues split into `--shards` shards (3). Reports
 * beside each other, per master count: runs/s, Redis commands and CPU per
 * run, and the largest share of all commands one master served (issue 32's
 * target: at most 45% with 3 masters). Every wait is bounded.
 */
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { parseArgs } from "node:util";
import { knownToolNames, submitGoal } from "@rein/orchestrator";
import { createRuntime, ReinConfig, type ReinRuntime } from "@rein/runtime";
import { ensureKeyPairFiles } from "@rein/signing";
import { type RoleProcess, spawnRole } from "../chaos/role-process.ts";
import { REDIS_BATCH_WAIT_MS, REDIS_WAIT_MS, within } from "../chaos/within.ts";
import { noopGoal, noopWorkerScript, plannerScript } from "../scripts.ts";
import { BenchCluster, type MasterWork } from "./bench-cluster.ts";

const { values } = parseArgs({
  options: {
    runs: { type: "string" },
    masters: { type: "string" },
    shards: { type: "string" },
    "step-workers": { type: "string" },
    "step-concurrency": { type: "string" },
    "timeout-s": { type: "string" },
  },
});
const runs = Number(values.runs ?? 1_000);
const masterCounts = (values.masters ?? "1,3").split(",").map(Number);
const shards = Number(values.shards ?? 3);
const stepWorkers = Number(values["step-workers"] ?? 2);
const stepConcurrency = Number(values["step-concurrency"] ?? 8);
const timeoutMs = Number(values["timeout-s"] ?? 600) * 1_000;
/** Issue 32: with 3 masters, no master serves more than this share of all commands. */
const MOST_SHARE = 0.45;
const log = (line: string) => process.stderr.write(`load:cluster: ${line}\n`);

interface Outcome {
  masters: number;
  ended: number;
  done: number;
  seconds: number;
  commandsPerRun: number;
  cpuMsPerRun: number;
  /** Each master's share of all commands, largest first. */
  shares: number[];
}

const outcomes: Outcome[] = [];
let failed = false;
for (const masters of masterCounts) {
  const outcome = await loadOn(masters);
  outcomes.push(outcome);
  if (outcome.ended < runs) failed = true;
}
const rows: [string, (outcome: Outcome) => string][] = [
  ["runs ended (done)", (o) => `${o.ended} (${o.done})`],
  ["wall", (o) => `${o.seconds.toFixed(1)} s`],
  ["runs/s", (o) => (o.ended / o.seconds).toFixed(0)],
  ["Redis commands per run", (o) => o.commandsPerRun.toFixed(0)],
  ["Redis CPU per run (all masters)", (o) => `${o.cpuMsPerRun.toFixed(2)} ms`],
  ["runs per Redis CPU-second", (o) => (1_000 / o.cpuMsPerRun).toFixed(0)],
  ["commands by master", (o) => o.shares.map((share) => `${(share * 100).toFixed(0)}%`).join(" / ")],
];
const header = `| ${runs} one-step runs, ${shards} queue shards | ${outcomes.map((o) => `${o.masters} master${o.masters === 1 ? "" : "s"}`).join(" | ")} |`;
process.stdout.write(
  [
    header,
    `| --- |${outcomes.map(() => " --- |").join("")}`,
    ...rows.map(([name, cell]) => `| ${name} | ${outcomes.map(cell).join(" | ")} |`),
  ].join("\n"),
);
for (const outcome of outcomes.filter((o) => o.masters >= 3)) {
  const most = outcome.shares[0] ?? 1;
  const met = most <= MOST_SHARE;
  if (!met) failed = true;
  process.stdout.write(
    `\nlargest share of commands on one of ${outcome.masters} masters: ${(most * 100).toFixed(1)}% (target ≤ ${MOST_SHARE * 100}%: ${met ? "met" : "missed"})`,
  );
}
process.stdout.write("\n");
process.exit(failed ? 1 : 0);

/** Starts a cluster of `masters`, deploys every role on it as its own process, and runs the load. */
async function loadOn(masters: number): Promise<Outcome> {
  log(`${masters} master(s): starting the cluster and the role processes`);
  const cluster = await BenchCluster.start(masters);
  const dir = await mkdtemp(join(tmpdir(), "rein-cluster-load-"));
  const processes: RoleProcess[] = [];
  let runtime: ReinRuntime | undefined;
  let kept = false;
  try {
    const paths = {
      workspaceRoot: join(dir, "workspaces"),
      keysDir: join(dir, "keys"),
      script: join(dir, "script.json"),
      logs: join(dir, "logs"),
    };
    await mkdir(paths.workspaceRoot);
    await mkdir(paths.logs);
    ensureKeyPairFiles(paths.keysDir, "packet");
    ensureKeyPairFiles(paths.keysDir, "approval");
    await writeFile(paths.script, JSON.stringify({ ...plannerScript(1), ...noopWorkerScript }));
    const config = {
      redis: { cluster: cluster.seeds },
      prefix: `load-${randomBytes(3).toString("hex")}`,
      workspaceRoot: paths.workspaceRoot,
      keysDir: paths.keysDir,
      queues: { shards },
      providers: { scripted: { kind: "scripted", script: paths.script, maxRetries: 0 } },
    };
    const configFile = join(dir, "rein.config.json");
    await writeFile(configFile, JSON.stringify(config, null, 2));
    const start = async (name: string, args: string[]) => {
      const role = spawnRole(name, [...args, "--config", configFile], {
        logDir: paths.logs,
        env: { REIN_LOG_LEVEL: "warn", REIN_KEYS_DIR: paths.keysDir },
      });
      processes.push(role);
      await role.ready;
    };
    await start("control", ["serve"]);
    await start("plan-evaluate", ["worker", "--role", "plan", "--role", "evaluate"]);
    for (let index = 1; index <= stepWorkers; index += 1)
      await start(`step-${index}`, ["worker", "--role", "step", "--concurrency", String(stepConcurrency)]);

    runtime = createRuntime(ReinConfig.parse(config), { logDestination: { write: () => true } });
    const ended = await watchRunEnds(runtime);
    const knownTools = knownToolNames(runtime.config, []);
    const before = await cluster.work();
    const started = Date.now();
    const submitted: string[] = [];
    for (let offset = 0; offset < runs; offset += 50) {
      const batch = Array.from(
        { length: Math.min(50, runs - offset) },
        async () => (await submitGoal(runtime as ReinRuntime, noopGoal, { knownTools })).runId,
      );
      submitted.push(...(await within("submitting 50 goals", REDIS_BATCH_WAIT_MS, Promise.all(batch))));
    }
    while (submitted.some((runId) => !ended.ids.has(runId)) && Date.now() - started < timeoutMs) {
      log(`${masters} master(s): ${submitted.filter((runId) => ended.ids.has(runId)).length}/${runs} ended`);
      await delay(1_000);
    }
    const after = await cluster.work();
    const seconds = (Date.now() - started) / 1_000;
    await ended.close();
    let done = 0;
    for (const runId of submitted) {
      if ((await within(`reading run ${runId}`, REDIS_WAIT_MS, (runtime as ReinRuntime).runs.get(runId)))?.status === "done") done += 1;
    }
    const count = Math.max(1, ended.ids.size);
    const delta = after.map((master, index) => subtract(master, before[index] as MasterWork));
    const commands = delta.reduce((sum, master) => sum + master.commands, 0);
    return {
      masters,
      ended: ended.ids.size,
      done,
      seconds,
      commandsPerRun: commands / count,
      cpuMsPerRun: (delta.reduce((sum, master) => sum + master.cpuSeconds, 0) * 1_000) / count,
      shares: delta.map((master) => master.commands / Math.max(1, commands)).sort((a, b) => b - a),
    };
  } catch (error) {
    kept = true;
    log(`${masters} master(s) failed; role logs kept in ${join(dir, "logs")}`);
    throw error;
  } finally {
    await Promise.allSettled(processes.map((role) => role.signal("SIGTERM")));
    await runtime?.close();
    await cluster.stop();
    if (!kept) await rm(dir, { recursive: true, force: true });
  }
}

function subtract(after: MasterWork, before: MasterWork): MasterWork {
  return { port: after.port, commands: after.commands - before.commands, cpuSeconds: after.cpuSeconds - before.cpuSeconds };
}

/** The runs whose end was published on the run-ended channel (a cluster broadcasts PUBLISH to every node). */
async function watchRunEnds(runtime: ReinRuntime): Promise<{ ids: Set<string>; close(): Promise<void> }> {
  const ids = new Set<string>();
  const subscriber = runtime.redis.duplicate();
  subscriber.on("message", (_channel: string, message: string) => {
    ids.add((JSON.parse(message) as { runId: string }).runId);
  });
  await subscriber.subscribe(runtime.keys.runEnded());
  return { ids, close: async () => void (await subscriber.quit()) };
}
