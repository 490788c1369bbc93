import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportPacketKeys, generatePacketKeys } from "@rein/signing";
import { type ModelScriptInput, ScriptedProvider } from "@rein/models";
import { createRuntime, type ReinRuntime } from "@rein/runtime";
import { createTestRuntime, type TestRuntime } from "@rein/runtime/testing";
import { type RunningRoles, startRoles } from "@rein/controller";
import { spawnWorkerProcess, type WorkerProcess } from "./worker-process.ts";

/** The step workers' lock and stall timing, and how long a SIGTERMed one waits for its steps. */
export interface WorkerTimingMs {
  lockMs: number;
  stalledMs: number;
  graceMs?: number;
}

/**
 * A deployment as the scaling tests run it: step workers as their own Node
 * processes (spawned by the test), the controller, planner and evaluator in
 * the test's process on connections of their own, all on one test prefix.
 */
export interface ScalingDeployment {
  runtime: TestRuntime;
  /** Where the test's tools and the test meet: the gate files and the logs the tools write. */
  gateDir: string;
  /** Starts a step-worker process running `entry` (step-worker-entry.ts unless named). */
  spawnWorker(name: string, concurrency: number, entry?: string): WorkerProcess;
  /** Starts the controller, planner and evaluator in this process, the models playing `script`. */
  startOtherRoles(script: ModelScriptInput): void;
  /** Sends `signal` to each worker process still running and waits for all to exit, then closes everything else. */
  close(signal: NodeJS.Signals): Promise<void>;
}

export async function openScalingDeployment(timing: WorkerTimingMs): Promise<ScalingDeployment> {
  const runtime = await createTestRuntime();
  const gateDir = await mkdtemp(join(tmpdir(), "rein-scaling-gate-"));
  const keys = generatePacketKeys();
  const env = {
    REIN_REDIS_URL: runtime.config.redisUrl,
    REIN_PREFIX: runtime.config.prefix,
    REIN_WORKSPACE_ROOT: runtime.config.workspaceRoot,
    REIN_PACKET_PUBLIC_KEY: exportPacketKeys(keys).publicKeyPem,
    SCALING_GATE_DIR: gateDir,
    SCALING_LOCK_MS: String(timing.lockMs),
    SCALING_STALLED_MS: String(timing.stalledMs),
    ...(timing.graceMs === undefined ? {} : { SCALING_GRACE_MS: String(timing.graceMs) }),
    REIN_LOG_LEVEL: "error",
  };
  const workers: WorkerProcess[] = [];
  const roleRuntimes: ReinRuntime[] = [];
  const roles: RunningRoles[] = [];
  return {
    runtime,
    gateDir,
    spawnWorker: (name, concurrency, entry) => {
      const worker = spawnWorkerProcess(name, concurrency, env, entry);
      workers.push(worker);
      return worker;
    },
    startOtherRoles: (script) => {
      const provider = (name: string) => new ScriptedProvider(script, { name });
      const [control, plan, evaluate] = [0, 1, 2].map(() => createRuntime(runtime.config)) as [ReinRuntime, ReinRuntime, ReinRuntime];
      roleRuntimes.push(control, plan, evaluate);
      roles.push(
        startRoles(control, { roles: ["control"], packetPrivateKey: keys.privateKey }),
        startRoles(plan, { roles: ["plan"], providers: { planner: provider("scripted-planner") } }),
        startRoles(evaluate, { roles: ["evaluate"], providers: { judge: provider("scripted-judge") } }),
      );
    },
    close: async (signal) => {
      for (const worker of workers) if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill(signal);
      await Promise.all(workers.map((worker) => worker.exited));
      await Promise.all(roles.map((running) => running.close()));
      for (const roleRuntime of roleRuntimes) await roleRuntime.close();
      await runtime.cleanup();
      await rm(gateDir, { recursive: true, force: true });
    },
  };
}
