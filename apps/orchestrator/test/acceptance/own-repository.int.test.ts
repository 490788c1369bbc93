import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ModelScriptInput } from "@rein/models";
import { connectRedis } from "@rein/runtime";
import { type FakeServer, startScriptedWireServer } from "@rein/models/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXAMPLES_DIR } from "../../src/examples/load-example.ts";
import { cliEnv, rein } from "../support/cli.ts";

/**
 * Issue 12's "what must be true": a goal on a small external git repository
 * with a failing test, run through the CLI against an OpenAI-compatible model
 * server (a local fake speaking Chat Completions), ends done; the repository
 * is unchanged until `rein apply`, after which its tests pass; `rein diff`
 * showed the change.
 */
describe("a goal on the user's own repository, end to end", { timeout: 240_000 }, () => {
  const scratch: string[] = [];
  const env = cliEnv({ FAKE_MODEL_KEY: "not-a-real-key" });
  let servers: FakeServer[] = [];
  let repo: string;
  let configFile: string;

  const tempDir = (name: string) => {
    const dir = mkdtempSync(join(tmpdir(), `rein-${name}-`));
    scratch.push(dir);
    return dir;
  };
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", ...args], { cwd: repo, encoding: "utf8" });
  const testsPass = () => spawnSync(process.execPath, ["--test"], { cwd: repo, encoding: "utf8" }).status === 0;

  beforeAll(async () => {
    repo = tempDir("slug-repo");
    cpSync(join(EXAMPLES_DIR, "bugfix", "project"), repo, { recursive: true });
    git("init", "--quiet", "-b", "main");
    git("add", "-A");
    git("commit", "--quiet", "-m", "add() with a bug");

    const script = JSON.parse(readFileSync(join(EXAMPLES_DIR, "bugfix", "script.json"), "utf8")) as ModelScriptInput;
    const serve = (role: "planner" | "worker" | "judge") =>
      startScriptedWireServer({ format: "openai-compatible", role, script, model: `fake-${role}` });
    servers = [await serve("planner"), await serve("worker"), await serve("judge")];
    const [planner, worker, judge] = servers as [FakeServer, FakeServer, FakeServer];
    const provider = (server: FakeServer) => ({
      kind: "openai-compatible",
      baseURL: server.baseURL,
      apiKeyEnv: "FAKE_MODEL_KEY",
      maxRetries: 0,
    });
    configFile = join(tempDir("config"), "rein.config.json");
    writeFileSync(
      configFile,
      JSON.stringify({
        providers: { planner: provider(planner), worker: provider(worker), judge: provider(judge) },
        roles: {
          planner: { provider: "planner", model: "fake-planner" },
          worker: { provider: "worker", model: "fake-worker" },
          evaluator: { provider: "judge", model: "fake-judge" },
          judge: { provider: "judge", model: "fake-judge" },
        },
        tools: { commands: ["node"] },
        policy: [
          { id: "allow-node-tests", tool: "run_command", decision: "allow", commands: ["node"], reason: "running the tests is the job" },
        ],
      }),
    );
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    const redis = connectRedis(env.REDIS_URL as string);
    const keys = await redis.keys(`*${env.REIN_PREFIX}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    for (const dir of [...scratch, env.REIN_WORKSPACE_ROOT as string, env.REIN_KEYS_DIR as string])
      rmSync(dir, { recursive: true, force: true });
  });

  it("ends done, leaves the repository alone until apply, and the applied change makes its tests pass", async () => {
    expect(testsPass()).toBe(false);
    const head = git("rev-parse", "HEAD");
    const goal = "The test suite of this project fails. Find the bug in src/ and fix it so that `node --test` passes.";

    const run = await rein(["run", goal, "--workspace", repo, "--config", configFile], env);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const runId = /run (run_[a-z0-9]+) submitted/.exec(run.stdout)?.[1] as string;
    expect(run.stdout).toContain(`run ${runId}: done`);
    expect(run.stderr).toContain(`models from ${configFile}`);
    expect(servers.every((server) => server.requests.length > 0)).toBe(true);

    expect(git("status", "--porcelain")).toBe("");
    expect(git("rev-parse", "HEAD")).toBe(head);
    expect(testsPass()).toBe(false);

    const diff = await rein(["diff", runId, "--config", configFile], env);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain("+++ b/src/add.js");
    expect(diff.stdout).toMatch(/^\+.*return a \+ b;$/m);
    expect(testsPass()).toBe(false);

    const applied = await rein(["apply", runId, "--config", configFile], env);
    expect(applied.code, applied.stderr).toBe(0);
    expect(testsPass()).toBe(true);
    expect(git("status", "--porcelain")).toBe(" M src/add.js\n");
  });
});
