import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { hashOf, PolicyRule } from "@rein/contracts";
import { IdempotencyStore } from "../../src/stores/idempotency-store.ts";
import { builtinTools, defineTool, type Workspace } from "@rein/tools";
import { CRASH_SURFACE, crashCall } from "./crash-call.ts";
import { call, harness } from "@rein/tools/testing";
import { REDIS_URL, type RedisForTest, workspaceAndRedis } from "./redis-harness.ts";

const ENTRY = fileURLToPath(new URL("./crash-call-entry.ts", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

let workspace: Workspace;
let env: RedisForTest;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ workspace, env, cleanup } = await workspaceAndRedis()));
afterEach(() => cleanup());

async function effects(): Promise<number> {
  const text = await readFile(join(workspace.root, "effects.txt"), "utf8").catch(() => "");
  return text.split("\n").filter(Boolean).length;
}

describe("at most once across a crash between a call's intent and its outcome (issue 13.4)", () => {
  it("never runs a non-idempotent call again after its worker was SIGKILLed mid-effect; the step is told the outcome is unknown", async () => {
    // The worker: its own process group, so the kill takes the sandboxed child with it, as a machine's crash would.
    const child = spawn(process.execPath, ["--conditions=@rein/source", "--import", "tsx", ENTRY], {
      cwd: REPO_ROOT,
      env: { ...process.env, CRASH_REDIS_URL: REDIS_URL, CRASH_PREFIX: env.keys.prefix, CRASH_WORKSPACE: workspace.root },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    try {
      for (let waited = 0; (await effects()) === 0; waited += 100) {
        if (waited > 60_000 || child.exitCode !== null) throw new Error(`the worker never performed the effect:\n${output}`);
        await delay(100);
      }
    } finally {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, "SIGKILL");
      await exited;
    }
    expect(output).not.toContain("finished");

    // The step is resumed from its checkpoint by another worker: the same attempt issues the same call at the same index.
    const resumed = harness({
      tools: builtinTools({ commands: ["node"] }),
      surface: CRASH_SURFACE,
      workspace,
      policy: [PolicyRule.parse({ id: "allow-node", tool: "run_command", commands: ["node"], decision: "allow" })],
      deps: { idempotency: new IdempotencyStore(env.redis, env.keys) },
    });
    const outcome = await resumed.executor.execute(crashCall(), 0, resumed.context());
    expect(outcome.observation.status).toBe("outcome_unknown");
    expect(outcome.observation.content.split("\n")[0]).toMatch(
      /^outcome unknown after a crash: run_command \{"args":\["-e",.*appendFileSync/,
    );
    expect(outcome.result.failure).toBe("fatal");
    expect(resumed.trace.kinds()).toContain("tool.outcome_unknown");
    expect(resumed.trace.kinds()).not.toContain("tool.executed");
    expect(await effects()).toBe(1);
  }, 120_000);

  it("runs an idempotent call again when a crash left its intent without an outcome", async () => {
    const runs: string[] = [];
    const tool = defineTool({
      name: "set_flag",
      description: "Set a flag to a value (the same value twice is the same state).",
      effect: "write",
      idempotent: true,
      input: z.object({ value: z.string() }),
      run: async (args) => {
        runs.push(args.value);
        return `flag is ${args.value}`;
      },
    });
    const idempotency = new IdempotencyStore(env.redis, env.keys);
    const allow = PolicyRule.parse({ id: "allow-flag", tool: "set_flag", decision: "allow" });
    const resumed = harness({
      tools: [tool],
      surface: [{ name: "set_flag", scope: {} }],
      workspace,
      policy: [allow],
      deps: { idempotency },
    });
    const flagCall = call("set_flag", { value: "on" });
    // The crash, driven through the store: the intent the first run wrote, and nothing after it.
    await idempotency.begin("run_test:step_test:1:0", {
      schemaVersion: 1,
      kind: "intent",
      fingerprint: hashOf({ tool: "set_flag", args: { value: "on" } }),
      actionHash: hashOf("set_flag on"),
      tool: "set_flag",
      args: { value: "on" },
      repeatable: true,
      startedAt: "2026-11-30T00:00:00.000Z",
      token: "crashed-run",
    });
    const outcome = await resumed.executor.execute(flagCall, 0, resumed.context());
    expect(outcome.observation.status).toBe("ok");
    expect(runs).toEqual(["on"]);
    expect(await idempotency.get("run_test:step_test:1:0")).toMatchObject({ kind: "result", rendered: "flag is on" });
  });

  describe("a call a deployment rule declares safe to repeat (config tools.repeatSafe, issue 32.7)", () => {
    const script = "require('fs').appendFileSync('effects.txt','x\\n')";
    const commandCall = () => ({ ...crashCall(), input: { command: "node", args: ["-e", script] } });
    /** The crash, driven through the store: the intent the killed worker wrote for `commandCall`, and nothing after it. */
    const crashedIntent = (idempotency: IdempotencyStore) =>
      idempotency.begin("run_test:step_test:1:0", {
        schemaVersion: 1,
        kind: "intent",
        fingerprint: hashOf({ tool: "run_command", args: { command: "node", args: ["-e", script] } }),
        actionHash: hashOf("node -e"),
        tool: "run_command",
        args: { command: "node", args: ["-e", script], cwd: ".", hosts: [] },
        repeatable: false,
        startedAt: "2026-11-30T00:00:00.000Z",
        token: "crashed-run",
      });
    const resumedWith = (idempotency: IdempotencyStore, repeatSafe: { tool: string; command?: string }[]) =>
      harness({
        tools: builtinTools({ commands: ["node"] }),
        surface: CRASH_SURFACE,
        workspace,
        policy: [PolicyRule.parse({ id: "allow-node", tool: "run_command", commands: ["node"], decision: "allow" })],
        repeatSafe,
        deps: { idempotency },
      });

    it("runs a command whose command line a rule covers again, traced as tool.repeated, and records its outcome", async () => {
      const idempotency = new IdempotencyStore(env.redis, env.keys);
      await crashedIntent(idempotency);
      const resumed = resumedWith(idempotency, [
        { tool: "run_command", command: "npm test*" },
        { tool: "run_command", command: "node -e *" },
      ]);
      const outcome = await resumed.executor.execute(commandCall(), 0, resumed.context());
      expect(outcome.observation.status).toBe("ok");
      expect(await effects()).toBe(1);
      expect(resumed.trace.ofKind("tool.repeated").map((event) => event.payload)).toEqual([
        expect.objectContaining({ rule: "tools.repeatSafe[1]", startedAt: "2026-11-30T00:00:00.000Z" }),
      ]);
      expect(resumed.trace.kinds()).not.toContain("tool.outcome_unknown");
      expect(await idempotency.get("run_test:step_test:1:0")).toMatchObject({ kind: "result" });
    });

    it("still reports the outcome unknown when the rules cover another command or another tool", async () => {
      const idempotency = new IdempotencyStore(env.redis, env.keys);
      await crashedIntent(idempotency);
      const resumed = resumedWith(idempotency, [{ tool: "run_command", command: "npm test*" }, { tool: "my_read_script" }]);
      const outcome = await resumed.executor.execute(commandCall(), 0, resumed.context());
      expect(outcome.observation.status).toBe("outcome_unknown");
      expect(resumed.trace.kinds()).not.toContain("tool.repeated");
      expect(await effects()).toBe(0);
    });
  });

  it("replays a failed side effect's failure on a re-run instead of trying the effect again", async () => {
    let runs = 0;
    const tool = defineTool({
      name: "charge_card",
      description: "Charge a card (not idempotent).",
      effect: "external",
      input: z.object({ cents: z.number() }),
      run: async (): Promise<string> => {
        runs += 1;
        throw new Error("gateway answered 502 after the charge was sent");
      },
    });
    const idempotency = new IdempotencyStore(env.redis, env.keys);
    const allow = PolicyRule.parse({ id: "allow-charge", tool: "charge_card", decision: "allow" });
    const executorFor = () =>
      harness({ tools: [tool], surface: [{ name: "charge_card", scope: {} }], workspace, policy: [allow], deps: { idempotency } });
    const first = executorFor();
    expect((await first.executor.execute(call("charge_card", { cents: 500 }), 0, first.context())).observation.status).toBe("error");
    const rerun = executorFor();
    const replayed = await rerun.executor.execute(call("charge_card", { cents: 500 }), 0, rerun.context());
    expect(replayed.observation).toMatchObject({ status: "error", provenance: { replayed: true } });
    expect(replayed.observation.content).toContain("gateway answered 502");
    expect(rerun.trace.kinds()).toContain("tool.replayed");
    expect(runs).toBe(1);
  });

  it("ends a call cut off by its worker giving the step back without an observation, leaving its intent for the re-issue", async () => {
    const controller = new AbortController();
    const tool = defineTool({
      name: "deploy",
      description: "Deploy (not idempotent).",
      effect: "external",
      input: z.object({}),
      run: (_args, context) =>
        new Promise<string>((_, reject) => {
          controller.abort();
          context.signal.addEventListener("abort", () => reject(new Error("killed")));
        }),
    });
    const idempotency = new IdempotencyStore(env.redis, env.keys);
    const allow = PolicyRule.parse({ id: "allow-deploy", tool: "deploy", decision: "allow" });
    const worker = harness({ tools: [tool], surface: [{ name: "deploy", scope: {} }], workspace, policy: [allow], deps: { idempotency } });
    await expect(worker.executor.execute(call("deploy", {}), 0, worker.context({ signal: controller.signal }))).rejects.toMatchObject({
      details: { interrupted: true },
    });
    expect(worker.trace.kinds()).toContain("tool.interrupted");
    expect(worker.trace.kinds()).not.toContain("tool.result");
    expect(worker.trace.kinds()).not.toContain("observation.made");
    expect(await idempotency.get("run_test:step_test:1:0")).toMatchObject({ kind: "intent", tool: "deploy" });
  });
});
