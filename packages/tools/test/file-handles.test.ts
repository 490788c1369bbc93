import { mkdir, readdir, readFile, rename, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { builtinTools } from "../src/builtin/builtin-tools.ts";
import type { Workspace } from "../src/workspace.ts";
import { call, harness } from "../src/testing/executor-harness.ts";
import { workspacePerTest } from "../src/testing/workspace-per-test.ts";

const temp = workspacePerTest();
const surface = ["read_file", "write_file", "edit_file", "search_files", "list_files"].map((name) => ({ name, scope: {} }));

/**
 * A long-lived plugin or process swapping a symlink in between the file
 * tool's check of a path and its open, made deterministic: the swap runs
 * right after the workspace resolves `target` for the second time (the
 * first is the executor's scope check, the second the tool's own).
 */
function swapAfterSecondResolve(workspace: Workspace, target: string, swap: () => Promise<void>): void {
  const resolve = workspace.resolve.bind(workspace);
  let calls = 0;
  workspace.resolve = async (path: string) => {
    const real = await resolve(path);
    if (path === target && ++calls === 2) await swap();
    return real;
  };
}

async function layout(): Promise<{ outside: string; swapNotes: () => Promise<void> }> {
  const root = temp.workspace.root;
  const outside = join(temp.dir, "outside");
  await mkdir(join(root, "notes"), { recursive: true });
  await writeFile(join(root, "notes/a.txt"), "inside\n");
  await mkdir(outside, { recursive: true });
  await writeFile(join(outside, "a.txt"), "STOLEN from outside\n");
  await writeFile(join(outside, "secret-name.txt"), "x\n");
  // The directory becomes a symlink out of the workspace.
  const swapNotes = async () => {
    await rename(join(root, "notes"), join(root, "notes-before"));
    await symlink(outside, join(root, "notes"));
  };
  return { outside, swapNotes };
}

describe("the file tools open a file once and check the open handle", () => {
  it("read_file refuses a directory swapped for a symlink out of the workspace between check and open", async () => {
    const { swapNotes } = await layout();
    swapAfterSecondResolve(temp.workspace, "notes/a.txt", swapNotes);
    const { run } = harness({ tools: builtinTools(), surface, workspace: temp.workspace });
    const outcome = await run(call("read_file", { path: "notes/a.txt" }));
    expect(outcome.observation.content).not.toContain("STOLEN");
    expect(outcome.observation.status).toBe("error");
    expect(outcome.observation.content).toContain("outside the run's workspace");
  });

  it("write_file creates nothing outside when the parent directory is swapped between check and open", async () => {
    const { outside, swapNotes } = await layout();
    swapAfterSecondResolve(temp.workspace, "notes/new.txt", swapNotes);
    const { run } = harness({ tools: builtinTools(), surface, workspace: temp.workspace });
    const outcome = await run(call("write_file", { path: "notes/new.txt", content: "planted" }));
    expect(outcome.observation.status).toBe("error");
    expect((await readdir(outside)).sort()).toEqual(["a.txt", "secret-name.txt"]);
  });

  it("edit_file neither reads nor writes a file swapped for a symlink at open time", async () => {
    const { outside } = await layout();
    const root = temp.workspace.root;
    swapAfterSecondResolve(temp.workspace, "notes/a.txt", async () => {
      await rename(join(root, "notes/a.txt"), join(root, "notes/a.before"));
      await symlink(join(outside, "a.txt"), join(root, "notes/a.txt"));
    });
    const { run } = harness({ tools: builtinTools(), surface, workspace: temp.workspace });
    // "inside" is in the file that was checked, not in the one swapped in: "not found" would say the tool read the other.
    const outcome = await run(call("edit_file", { path: "notes/a.txt", oldString: "inside", newString: "changed" }));
    expect(outcome.observation.status).toBe("error");
    expect(outcome.observation.content).toContain("it was a symlink when it was opened");
    expect(outcome.observation.content).not.toContain("was not found");
    expect(await readFile(join(outside, "a.txt"), "utf8")).toBe("STOLEN from outside\n");
  });

  it("search_files reads no directory or file swapped for a symlink while it walks", async () => {
    const { swapNotes } = await layout();
    const root = temp.workspace.root;
    await writeFile(join(root, "top.txt"), "STOLEN? no, inside\n");
    await mkdir(join(root, "docs"));
    await writeFile(join(root, "docs/b.txt"), "inside\n");
    // After the walk has listed the root, notes/ becomes a symlink out; after it has listed docs/, docs/b.txt does.
    const readDirectory = temp.workspace.readDirectory.bind(temp.workspace);
    temp.workspace.readDirectory = async (path: string) => {
      const entries = await readDirectory(path);
      if (path === root) await swapNotes();
      if (path === join(root, "docs")) {
        await rename(join(root, "docs/b.txt"), join(root, "docs/b.before"));
        await symlink(join(temp.dir, "outside/a.txt"), join(root, "docs/b.txt"));
      }
      return entries;
    };
    const { run } = harness({ tools: builtinTools(), surface, workspace: temp.workspace });
    const outcome = await run(call("search_files", { query: "STOLEN" }));
    expect(outcome.observation.content).toContain("top.txt:1:");
    expect(outcome.observation.content).not.toContain("from outside");
  });

  it("list_files lists no directory swapped for a symlink while it walks", async () => {
    const { swapNotes } = await layout();
    const root = temp.workspace.root;
    const readDirectory = temp.workspace.readDirectory.bind(temp.workspace);
    temp.workspace.readDirectory = async (path: string) => {
      const entries = await readDirectory(path);
      if (path === root) await swapNotes();
      return entries;
    };
    const { run } = harness({ tools: builtinTools(), surface, workspace: temp.workspace });
    const outcome = await run(call("list_files", { path: ".", recursive: true }));
    expect(outcome.observation.status).toBe("ok");
    expect(outcome.observation.content).not.toContain("secret-name");
  });

  it("reads, writes and edits an ordinary file, and follows a symlink that stays inside", async () => {
    await mkdir(join(temp.workspace.root, "src/lib"), { recursive: true });
    await symlink("src/lib", join(temp.workspace.root, "lib"));
    const { run } = harness({ tools: builtinTools(), surface, workspace: temp.workspace });
    expect((await run(call("write_file", { path: "lib/deep/x.txt", content: "one two" }))).observation.status).toBe("ok");
    expect((await run(call("edit_file", { path: "src/lib/deep/x.txt", oldString: "two", newString: "three" }))).observation.status).toBe(
      "ok",
    );
    expect(await readFile(join(temp.workspace.root, "src/lib/deep/x.txt"), "utf8")).toBe("one three");
    expect((await run(call("write_file", { path: "src/lib/deep/x.txt", content: "short" }))).observation.status).toBe("ok");
    const read = await run(call("read_file", { path: "lib/deep/x.txt" }));
    expect(read.observation.content).toContain("short");
    expect(read.observation.content).not.toContain("three");
  });
});
