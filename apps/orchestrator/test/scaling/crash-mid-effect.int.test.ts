import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createRuntime, exportPacketKeys, generatePacketKeys, type ReinRuntime, type RunState, ScriptedProvider } from "@rein/core";
import { createTestRuntime, type TestRuntime } from "@rein/core/testing";
import { submitGoal } from "../../src/intake/submit-goal.ts";
import { type RunningRoles, startRoles } from "../../src/roles/start-roles.ts";
import { buildRegistry } from "../../src/roles/tooling.ts";
import { crashGoal, crashScript, deployRelease, EFFECTS_FILE, STARTED_FILE } from "./crash-effect-fixture.ts";
import { spawnWorkerProcess, type WorkerProcess } from "./worker-process.ts";

const ENTRY = fileURLToPath(new URL("./crash-effect-entry.ts", import.meta.url));
const WAIT = { timeout: 180_000, interval: 50 };

describe("a step worker SIGKILLed in the middle of a non-idempotent effect (issue 13.4)", () => {
  let runtime: TestRuntime;
  let gateDir: string;
  const roleRuntimes: ReinRuntime[] = [];
  const roles: RunningRoles[] = [];
  const workers: WorkerProcess[] = [];
  let runId: string;
  let state: RunState;

  beforeAll(async () => {
    runtime = await createTestRuntime();
    gateDir = await mkdtemp(join(tmpdir(), "rein-crash-effect-"));
    const keys = generatePacketKeys();
    const env = {
      REIN_REDIS_URL: runtime.config.redisUrl,
      REIN_PREFIX: runtime.config.prefix,
      REIN_WORKSPACE_ROOT: runtime.config.workspaceRoot,
      REIN_PACKET_PUBLIC_KEY: exportPacketKeys(keys).publicKeyPem,
      SCALING_GATE_DIR: gateDir,
      SCALING_LOCK_MS: "3000",
      SCALING_STALLED_MS: "1000",
      REIN_LOG_LEVEL: "error",
    };
    const first = spawnWorkerProcess("first", 1, env, ENTRY);
    workers.push(first);
    await first.printed("ready");

    const provider = (name: string) => new ScriptedProvider(crashScript, { name });
    const control = createRuntime(runtime.config);
    const plan = createRuntime(runtime.config);
    const evaluate = createRuntime(runtime.config);
    roleRuntimes.push(control, plan, evaluate);
    roles.push(
      startRoles(control, { roles: ["control"], packetPrivateKey: keys.privateKey }),
      startRoles(plan, { roles: ["plan"], providers: { planner: provider("scripted-planner") } }),
      startRoles(evaluate, { roles: ["evaluate"], providers: { judge: provider("scripted-judge") } }),
    );
    const knownTools = buildRegistry(runtime.config, [deployRelease(gateDir)]).names();
    runId = (await submitGoal(runtime, crashGoal, { knownTools })).runId;

    // The effect is done and the call still running: the worker dies between the call's intent and its outcome.
    await vi.waitFor(async () => expect(await readFile(join(gateDir, STARTED_FILE), "utf8").catch(() => "")).toContain(runId), WAIT);
    first.child.kill("SIGKILL");
    await first.exited;
    const second = spawnWorkerProcess("second", 1, env, ENTRY);
    workers.push(second);
    await second.printed("ready");

    await vi.waitFor(async () => {
      state = await runtime.runs.require(runId);
      expect(state.status).toBe("escalated");
    }, WAIT);
  }, 300_000);

  afterAll(async () => {
    for (const worker of workers) if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill("SIGKILL");
    await Promise.all(workers.map((worker) => worker.exited));
    await Promise.all(roles.map((running) => running.close()));
    for (const roleRuntime of roleRuntimes) await roleRuntime.close();
    await runtime?.cleanup();
    if (gateDir) await rm(gateDir, { recursive: true, force: true });
  }, 120_000);

  it("does not perform the effect again when the step resumes on another worker", async () => {
    const lines = (await readFile(join(runtime.config.workspaceRoot, runId, EFFECTS_FILE), "utf8")).split("\n").filter(Boolean);
    expect(lines).toEqual([`${runId} v2`]);
  });

  it("escalates the run to a person with the action shown", async () => {
    const text = JSON.stringify(state);
    expect(text).toContain('outcome unknown after a crash: deploy_release {\\"release\\":\\"v2\\"}');
    const kinds = (await runtime.trace.read(runId)).map((event) => event.kind);
    expect(kinds).toContain("tool.outcome_unknown");
  });
});
