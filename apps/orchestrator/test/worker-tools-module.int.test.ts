import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "@rein/contracts/testing";
import { ensureKeyPairFiles, loadPrivateKey } from "@rein/signing";
import { ScriptedProvider } from "@rein/models";
import { oneStepPlanner } from "@rein/models/testing";
import { createRuntime, ReinConfig, type ReinRuntime } from "@rein/runtime";
import { deleteByPrefix } from "@rein/runtime/keys";
import { waitForRun } from "@rein/runtime/testing";
import { readWorkerStatus, type RunningRoles, startRoles } from "@rein/controller";
import { loadToolModules } from "../src/cli/tool-modules.ts";
import { cliEnv, startRein } from "./support/cli.ts";

const TOOLS_KIT = resolve(import.meta.dirname, "../../../packages/tools/src/index.ts");
const goal = { text: "Shout the word hello", tools: [{ name: "shout" }] };
const script = {
  planner: oneStepPlanner(
    goal.text,
    {
      title: "Shout hello",
      objective: "Run shout on the word hello once.",
      tools: ["shout"],
      output_contract: { description: "the word", format: "text" },
    },
    { answer: "HELLO", claims: [{ text: "shout answered HELLO", evidence: ["{{evidence:shout}}"] }], gaps: [] },
  ),
  worker: [{ match: "Shout hello", turns: [{ toolCalls: [{ name: "shout", input: { word: "hello" } }] }, { text: "HELLO" }] }],
};

/** A user's module of defineTool tools, written where a user would keep it, outside the repository's packages. */
function toolsModule(body: string): string {
  const dir = mkdtempSync(join(tmpdir(), "rein-tools-"));
  // A user's project is an ES module package, as the tool kit is.
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  const file = join(dir, "tools.ts");
  writeFileSync(file, `import { defineTool, z } from ${JSON.stringify(TOOLS_KIT)};\n${body}`);
  return file;
}

const SHOUT = `export const shout = defineTool({
  name: "shout",
  description: "Upper-case a word. Read-only.",
  effect: "read",
  input: z.object({ word: z.string() }),
  run: async (args) => args.word.toUpperCase(),
});
`;

// Issue 32, point 5: a fleet of step workers carries the user's TypeScript tools without a worker program of its own.
describe("rein worker --role step --tools MODULE", { timeout: 180_000 }, () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  /** The test's deployment: a config file with its prefix, keys, workspace root, the scripted models and `extra`; a runtime on it, cleaned up after. */
  function deployment(env: NodeJS.ProcessEnv, extra: Record<string, unknown>): { configFile: string; runtime: ReinRuntime } {
    const dir = mkdtempSync(join(tmpdir(), "rein-tools-deploy-"));
    const scriptFile = join(dir, "script.json");
    writeFileSync(scriptFile, JSON.stringify(script));
    const config = {
      prefix: env.REIN_PREFIX,
      workspaceRoot: env.REIN_WORKSPACE_ROOT,
      keysDir: env.REIN_KEYS_DIR,
      providers: { scripted: { kind: "scripted", script: scriptFile, maxRetries: 0 } },
      ...extra,
    };
    const configFile = join(dir, "rein.config.json");
    writeFileSync(configFile, JSON.stringify(config));
    const runtime = createRuntime(ReinConfig.parse({ ...config, redisUrl: env.REDIS_URL }));
    cleanup.push(async () => {
      await deleteByPrefix(runtime.redis, runtime.config.prefix);
      await runtime.close();
    });
    return { configFile, runtime };
  }

  it("loads the module's tools in the worker process, and a goal granting one runs it there", async () => {
    const env = cliEnv();
    const { configFile, runtime } = deployment(env, {});
    ensureKeyPairFiles(env.REIN_KEYS_DIR as string, "packet");
    ensureKeyPairFiles(env.REIN_KEYS_DIR as string, "approval");

    // Before any step worker carries it, a goal granting the module's tool is refused with where its name can come from.
    const early = await startRein(["submit", goal.text, "--tools", "shout", "--config", configFile], env).done;
    expect(early.code).toBe(2);
    expect(early.stderr).toMatch(/goal.tools names shout, which this deployment does not know/);
    expect(early.stderr).toMatch(/once a running step worker carries it, or config tools.extra names it/);
    const worker = startRein(["worker", "--role", "step", "--tools", toolsModule(SHOUT), "--config", configFile], {
      ...env,
      REIN_LOG_LEVEL: "info",
    });
    cleanup.push(async () => {
      worker.child.kill("SIGTERM");
      await worker.done;
    });
    let stderr = "";
    worker.child.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    await until("the step worker to say it runs", () => stderr.includes("running against") || worker.child.exitCode !== null, 120_000);
    expect(stderr).toContain("step running against");
    await until("the step worker to say which of your tools it carries", () =>
      stderr.includes("the step worker carries your tools shout; goals may grant them while it runs"),
    );
    await until("the step worker to announce the tools it carries", async () =>
      (await readWorkerStatus(runtime)).some((published) => published.tools?.includes("shout")),
    );

    const privateKey = loadPrivateKey("packet", { dir: env.REIN_KEYS_DIR as string });
    const roles: RunningRoles = startRoles(runtime, {
      roles: ["control", "plan", "evaluate"],
      packetPrivateKey: privateKey,
      providers: { planner: new ScriptedProvider(script), judge: new ScriptedProvider({}) },
    });
    cleanup.push(() => roles.close(0));
    // The submitting process loads no user code: it learns the name from the step worker, which announces what it carries.
    const submitted = await startRein(["submit", goal.text, "--tools", "shout", "--config", configFile], env).done;
    expect(submitted.code, submitted.stderr).toBe(0);
    const runId = submitted.stdout.trim();
    const state = await waitForRun(runtime, runId, (candidate) => ["done", "failed", "escalated"].includes(candidate.status));
    expect(state.status, `${state.stopReason}\n${stderr}`).toBe("done");
    const results = (await runtime.trace.read(runId)).filter((event) => event.kind === "tool.result");
    expect(results.map((event) => [event.payload.tool, event.payload.status])).toEqual([["shout", "ok"]]);
  });

  it("rein run carries config toolModules in its own step worker, so a goal granting their tool runs end to end", async () => {
    const env = cliEnv();
    const { configFile, runtime } = deployment(env, { toolModules: [toolsModule(SHOUT)] });
    const run = await startRein(["run", goal.text, "--tools", "shout", "--config", configFile], env).done;
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const runId = /run (run_[a-z0-9_]+)/.exec(run.stdout)?.[1];
    expect(runId, run.stdout).toBeDefined();
    const results = (await runtime.trace.read(runId as string)).filter((event) => event.kind === "tool.result");
    expect(results.map((event) => [event.payload.tool, event.payload.status])).toEqual([["shout", "ok"]]);
    // A replay answers the module's tool from the recording, as it does every tool.
    const replay = await startRein(["replay", runId as string, "--config", configFile], env).done;
    expect(replay.code, `${replay.stdout}\n${replay.stderr}`).toBe(0);
    expect(replay.stdout).toMatch(/identical/);
  });

  it("refuses a module that exports no defineTool tools, or fails to load, naming it and what was expected", async () => {
    const empty = toolsModule("export const notATool = 42;\n");
    await expect(loadToolModules([empty])).rejects.toMatchObject({
      code: "config_invalid",
      message: expect.stringMatching(/exports no defineTool tools \(exports: notATool\); expected `export const myTool = defineTool/),
    });
    const broken = toolsModule('throw new Error("cannot reach the inventory");\n');
    await expect(loadToolModules([broken])).rejects.toMatchObject({
      code: "config_invalid",
      message: expect.stringMatching(/failed to load: cannot reach the inventory; expected a module of defineTool tools/),
    });
    await expect(loadToolModules(["./no-such-tools.ts"])).rejects.toMatchObject({
      code: "config_invalid",
      message: expect.stringMatching(/no such file/),
    });
    expect((await loadToolModules([toolsModule(SHOUT)])).map((tool) => tool.name)).toEqual(["shout"]);
  });
});
