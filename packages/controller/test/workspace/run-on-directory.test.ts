import { execFileSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { applyRun } from "../../src/workspace/apply-changes.ts";
import { prepareWorkspace } from "../../src/workspace/prepare-workspace.ts";
import { changedFiles, snapshotRun, unifiedDiff } from "../../src/workspace/run-changes.ts";
import { removeWorkspace } from "../../src/workspace/remove-workspace.ts";
import { readOrigin } from "../../src/workspace/workspace-origin.ts";

const scratch: string[] = [];
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `rein-${name}-`));
  scratch.push(dir);
  return dir;
}

const gitIn = (dir: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" },
  });

function write(dir: string, path: string, text: string): void {
  mkdirSync(join(dir, path, ".."), { recursive: true });
  writeFileSync(join(dir, path), text);
}

/** A repository with one commit, an ignored file and an untracked one. */
function userRepo(): string {
  const dir = tempDir("repo");
  gitIn(dir, "init", "--quiet", "-b", "main");
  write(dir, ".gitignore", "secret.env\nbuild/\n");
  write(dir, "src/slug.js", "export const slug = (s) => s.toLowerCase();\n");
  write(dir, "README.md", "# project\n");
  gitIn(dir, "add", "-A");
  gitIn(dir, "commit", "--quiet", "-m", "start");
  write(dir, "secret.env", "TOKEN=1\n");
  write(dir, "build/out.js", "compiled\n");
  write(dir, "notes.txt", "untracked\n");
  return dir;
}

/** Everything under `dir` except .git, as path → content, to prove a directory was not touched. */
function snapshotOf(dir: string): string {
  return gitIn(dir, "status", "--porcelain", "--untracked-files=all", "--ignored") + gitIn(dir, "rev-parse", "HEAD") + gitIn(dir, "diff");
}

describe("running on a git repository", () => {
  it("works in a fresh worktree on branch rein/<runId> with only committed files, and never touches the user's tree", async () => {
    const repo = userRepo();
    const before = snapshotOf(repo);
    const root = tempDir("ws");
    const origin = await prepareWorkspace({ source: repo, workspaceRoot: root, runId: "run_a1" });

    expect(origin.kind).toBe("git-worktree");
    expect(origin.branch).toBe("rein/run_a1");
    expect(origin.workspace).toBe(join(realpathSync(root), "run_a1"));
    expect(readFileSync(join(origin.workspace, "src/slug.js"), "utf8")).toContain("toLowerCase");
    for (const notCopied of ["secret.env", "build/out.js", "notes.txt"]) expect(existsSync(join(origin.workspace, notCopied))).toBe(false);
    expect(gitIn(repo, "branch", "--list", "rein/run_a1")).toContain("rein/run_a1");
    expect(snapshotOf(repo)).toBe(before);
    expect(await readOrigin(root, "run_a1")).toEqual(origin);
  });

  it("refuses a dirty tree unless asked, and then copies the uncommitted changes in (untracked files still not)", async () => {
    const repo = userRepo();
    write(repo, "README.md", "# project, edited\n");
    await expect(prepareWorkspace({ source: repo, workspaceRoot: tempDir("ws"), runId: "run_d1" })).rejects.toThrow(
      /has uncommitted changes \(README\.md\); commit or stash them, or pass --include-dirty/,
    );
    const origin = await prepareWorkspace({ source: repo, workspaceRoot: tempDir("ws"), runId: "run_d2", includeDirty: true });
    expect(origin.includedDirty).toBe(true);
    expect(readFileSync(join(origin.workspace, "README.md"), "utf8")).toBe("# project, edited\n");
    expect(existsSync(join(origin.workspace, "notes.txt"))).toBe(false);
    // The dirty changes are the base, not the run's changes.
    expect(await changedFiles(origin, await snapshotRun(origin))).toEqual([]);
    expect(gitIn(repo, "status", "--porcelain", "--untracked-files=no")).toBe(" M README.md\n");
  });

  it("shows the run's changes as a diff, applies them on `apply`, and merges as a branch", async () => {
    const repo = userRepo();
    const root = tempDir("ws");
    const origin = await prepareWorkspace({ source: repo, workspaceRoot: root, runId: "run_c1" });
    write(origin.workspace, "src/slug.js", "export const slug = (s) => s.toLowerCase().replaceAll(' ', '-');\n");
    write(origin.workspace, "test/slug.test.js", "// new test\n");
    rmSync(join(origin.workspace, "README.md"));

    const commit = await snapshotRun(origin);
    expect(await changedFiles(origin, commit)).toEqual([
      { status: "D", path: "README.md" },
      { status: "M", path: "src/slug.js" },
      { status: "A", path: "test/slug.test.js" },
    ]);
    const diff = await unifiedDiff(origin, commit);
    expect(diff).toContain("--- a/src/slug.js\n+++ b/src/slug.js");
    expect(diff).toContain("+export const slug = (s) => s.toLowerCase().replaceAll(' ', '-');");
    expect(readFileSync(join(repo, "src/slug.js"), "utf8")).not.toContain("replaceAll");
    expect(gitIn(repo, "log", "--format=%s", "-1", "rein/run_c1")).toBe("rein: changes of run run_c1\n");

    const result = await applyRun(origin);
    expect(result.applied.map((file) => file.path)).toEqual(["README.md", "src/slug.js", "test/slug.test.js"]);
    expect(readFileSync(join(repo, "src/slug.js"), "utf8")).toContain("replaceAll");
    expect(existsSync(join(repo, "README.md"))).toBe(false);
    expect(readFileSync(join(repo, "secret.env"), "utf8")).toBe("TOKEN=1\n");
    expect((await applyRun(origin)).applied).toEqual([]);
  });

  it("refuses to apply when the user changed the same file since the run began, and writes nothing", async () => {
    const repo = userRepo();
    const origin = await prepareWorkspace({ source: repo, workspaceRoot: tempDir("ws"), runId: "run_x1" });
    write(origin.workspace, "src/slug.js", "// the run's version\n");
    write(origin.workspace, "README.md", "# the run's readme\n");
    write(repo, "src/slug.js", "// the user's own edit\n");

    await expect(applyRun(origin)).rejects.toThrow(
      /changed since run run_x1 began under src\/slug\.js; nothing was applied.*git merge rein\/run_x1/,
    );
    expect(readFileSync(join(repo, "src/slug.js"), "utf8")).toBe("// the user's own edit\n");
    expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("# project\n");
  });

  it("removes a pruned run's worktree from the repository and keeps its branch for merging", async () => {
    const repo = userRepo();
    const root = tempDir("ws");
    const origin = await prepareWorkspace({ source: repo, workspaceRoot: root, runId: "run_r1" });
    write(origin.workspace, "src/slug.js", "// kept on the branch\n");
    await snapshotRun(origin);
    await removeWorkspace(root, "run_r1");
    expect(existsSync(origin.workspace)).toBe(false);
    expect(gitIn(repo, "worktree", "list")).not.toContain("run_r1");
    expect(gitIn(repo, "show", "rein/run_r1:src/slug.js")).toBe("// kept on the branch\n");
    await expect(readOrigin(root, "run_r1")).rejects.toThrow(/did not run on a directory of yours/);
  });

  it("never lets the run's rewritten .git file point Rein's git at a repository the run made", async () => {
    const repo = userRepo();
    const origin = await prepareWorkspace({ source: repo, workspaceRoot: tempDir("ws"), runId: "run_h1" });
    const marker = join(tempDir("marker"), "ran");
    const evil = join(origin.workspace, "evil");
    execFileSync("git", ["init", "--quiet", evil]);
    execFileSync("git", ["-C", evil, "config", "core.fsmonitor", `touch ${marker}; false`]);
    writeFileSync(join(origin.workspace, ".git"), `gitdir: ${join(evil, ".git")}\n`);
    write(origin.workspace, "src/slug.js", "// changed\n");

    const files = await changedFiles(origin, await snapshotRun(origin));
    expect(files.map((file) => file.path)).toContain("src/slug.js");
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(join(origin.workspace, ".git"), "utf8")).toBe(origin.dotGit);
  });
});

describe("running on a directory that is not a repository", () => {
  function project(): string {
    const dir = tempDir("plain");
    write(dir, ".gitignore", "*.log\n");
    write(dir, "index.js", "console.log(1)\n");
    write(dir, "debug.log", "noise\n");
    write(dir, "node_modules/left-pad/index.js", "module.exports = 1\n");
    write(dir, ".rein/keys/packet-private.pem", "PRIVATE\n");
    write(dir, "sub/.git/config", "[core]\n");
    symlinkSync("index.js", join(dir, "entry.js"));
    return dir;
  }

  it("copies it honouring .gitignore, without node_modules, .rein or .git, symlinks kept as symlinks", async () => {
    const dir = project();
    const origin = await prepareWorkspace({ source: dir, workspaceRoot: tempDir("ws"), runId: "run_p1" });
    expect(origin.kind).toBe("copy");
    expect(readFileSync(join(origin.workspace, "index.js"), "utf8")).toBe("console.log(1)\n");
    for (const skipped of ["debug.log", "node_modules", ".rein", "sub/.git"])
      expect(existsSync(join(origin.workspace, skipped)), skipped).toBe(false);
    expect(lstatSync(join(origin.workspace, "entry.js")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(origin.workspace, "entry.js"))).toBe("index.js");
    expect(existsSync(join(dir, ".git"))).toBe(false);
  });

  it("diffs and applies the same way", async () => {
    const dir = project();
    const origin = await prepareWorkspace({ source: dir, workspaceRoot: tempDir("ws"), runId: "run_p2" });
    write(origin.workspace, "index.js", "console.log(2)\n");
    expect(await unifiedDiff(origin, await snapshotRun(origin))).toContain("-console.log(1)\n+console.log(2)");
    expect(readFileSync(join(dir, "index.js"), "utf8")).toBe("console.log(1)\n");
    expect((await applyRun(origin)).applied).toEqual([{ status: "M", path: "index.js" }]);
    expect(readFileSync(join(dir, "index.js"), "utf8")).toBe("console.log(2)\n");
  });

  it("never writes outside the directory, even where a path now leads through a symlink", async () => {
    const dir = project();
    const outside = tempDir("outside");
    write(dir, "conf/app.json", "{}\n");
    const origin = await prepareWorkspace({ source: dir, workspaceRoot: tempDir("ws"), runId: "run_p3" });
    write(origin.workspace, "conf/app.json", '{"owned": true}\n');
    rmSync(join(dir, "conf"), { recursive: true });
    symlinkSync(outside, join(dir, "conf"));

    await expect(applyRun(origin)).rejects.toThrow(/symlink/);
    expect(existsSync(join(outside, "app.json"))).toBe(false);
  });
});
