import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectRedis } from "@rein/runtime";
import { afterAll, describe, expect, it } from "vitest";
import { EXAMPLES_DIR } from "../../src/examples/load-example.ts";
import { cliEnv, rein } from "../support/cli.ts";

const env = cliEnv();
const scratch: string[] = [env.REIN_WORKSPACE_ROOT as string];
afterAll(async () => {
  const redis = connectRedis(env.REDIS_URL as string);
  const keys = await redis.keys(`${env.REIN_PREFIX}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** The bugfix example's project as the user's own git repository, its test failing. */
function userRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), "rein-user-repo-"));
  scratch.push(dir);
  cpSync(join(EXAMPLES_DIR, "bugfix", "project"), dir, { recursive: true });
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", ...args], { cwd: dir });
  git("init", "--quiet", "-b", "main");
  git("add", "-A");
  git("commit", "--quiet", "-m", "add() with a bug");
  return dir;
}

const testsPass = (dir: string) => spawnSync(process.execPath, ["--test"], { cwd: dir, encoding: "utf8" }).status === 0;

// Several CLI starts per test; sized for a loaded two-core machine, not a timing assertion.
describe("rein run --workspace DIR, rein diff, rein apply", { timeout: 180_000 }, () => {
  it("runs in a worktree, leaves the repository alone until apply, and the applied fix makes its tests pass", async () => {
    const repo = userRepo();
    const original = readFileSync(join(repo, "src/add.js"), "utf8");
    expect(testsPass(repo)).toBe(false);

    const run = await rein(["run", "--example", "bugfix", "--workspace", repo], env);
    expect(run.code, run.stderr).toBe(0);
    const runId = /run (run_[a-z0-9]+) submitted/.exec(run.stdout)?.[1] as string;
    const workspace = join(env.REIN_WORKSPACE_ROOT as string, runId);
    expect(run.stdout).toContain(`workspace: ${workspace} (git worktree of ${repo} on branch rein/${runId}`);
    expect(run.stdout.indexOf("workspace: ")).toBeLessThan(run.stdout.indexOf("✓ plan"));
    expect(run.stdout).toMatch(/changes in .*:\n {2}M src\/add\.js\n/);
    expect(run.stdout).toContain(`apply them: rein apply ${runId}`);
    expect(run.stdout).toContain(`git -C ${repo} merge rein/${runId}`);
    expect(readFileSync(join(repo, "src/add.js"), "utf8")).toBe(original);

    const diff = await rein(["diff", runId], env);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain("--- a/src/add.js\n+++ b/src/add.js");
    expect(diff.stdout).toMatch(/^-.*a - b;$/m);
    expect(diff.stdout).toMatch(/^\+.*a \+ b;$/m);
    expect(readFileSync(join(repo, "src/add.js"), "utf8")).toBe(original);

    const applied = await rein(["apply", runId], env);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain("M src/add.js");
    expect(testsPass(repo)).toBe(true);
  });

  it("replays a run on a directory with tools really running, from the files as they were when the run began", async () => {
    const repo = userRepo();
    // Unlike the example's own project: a replay seeded from anything but this repository lists other files.
    writeFileSync(join(repo, "CHANGELOG.md"), "# Changes\n");
    execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", "add", "CHANGELOG.md"], { cwd: repo });
    execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@u", "commit", "--quiet", "-m", "changelog"], { cwd: repo });
    const run = await rein(["run", "--example", "bugfix", "--workspace", repo], env);
    expect(run.code, run.stderr).toBe(0);
    const runId = /run (run_[a-z0-9]+) submitted/.exec(run.stdout)?.[1] as string;
    // The repository moves on after the run; the replay still starts where the run did.
    writeFileSync(join(repo, "LATER.md"), "added after the run\n");
    const replay = await rein(["replay", runId, "--run-tools"], env);
    expect(replay.code, replay.stdout + replay.stderr).toBe(0);
    expect(replay.stdout).toMatch(/identical/);
    expect(replay.stderr).toMatch(new RegExp(`files of ${repo} as the run began`));
  });

  it("prints diff and apply commands that work as printed when the config lives elsewhere", async () => {
    const repo = userRepo();
    // The config sets where workspaces go; the commands printed must carry it, or they look in the default place.
    const configDir = mkdtempSync(join(tmpdir(), "rein-elsewhere-"));
    scratch.push(configDir);
    const config = join(configDir, "rein.config.json");
    writeFileSync(config, JSON.stringify({ workspaceRoot: join(configDir, "workspaces") }));
    const { REIN_WORKSPACE_ROOT: _root, ...withoutRoot } = env;
    const run = await rein(["run", "--example", "bugfix", "--workspace", repo, "--config", config], withoutRoot);
    expect(run.code, run.stderr).toBe(0);
    const runId = /run (run_[a-z0-9]+) submitted/.exec(run.stdout)?.[1] as string;
    const printed = (label: string) =>
      new RegExp(`^${label} them: +rein (.+?)(?: {3}\\(.*)?$`, "m").exec(run.stdout)?.[1]?.split(" ") ?? [];
    expect(printed("see").join(" ")).toBe(`diff ${runId} --config ${config}`);
    const applied = await rein(printed("apply"), withoutRoot);
    expect(applied.code, applied.stderr).toBe(0);
    expect(testsPass(repo)).toBe(true);
  });

  it("refuses a repository with uncommitted changes, naming them and --include-dirty", async () => {
    const repo = userRepo();
    writeFileSync(join(repo, "src/add.js"), "// half-done edit\n");
    const run = await rein(["run", "--example", "bugfix", "--workspace", repo], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/has uncommitted changes \(src\/add\.js\); commit or stash them, or pass --include-dirty/);
  });

  it("tells apply of an unknown run what it expected", async () => {
    const result = await rein(["apply", "run_nosuchrun"], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/run run_nosuchrun did not run on a directory of yours/);
  });
});
