import { access, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ReinError } from "@rein/contracts";
import { Workspace } from "../src/workspace.ts";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "rein-of-run-"));
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe("a run's workspace opened where its steps run (Workspace.ofRun)", () => {
  it("is the directory the run was taken in under, files and all", async () => {
    await mkdir(join(root, "run_here"));
    await writeFile(join(root, "run_here", "notes.txt"), "kept");
    const workspace = await Workspace.ofRun(root, "run_here");
    expect(workspace.directory()).toBe(workspace.root);
    expect(await workspace.resolve("notes.txt")).toBe(join(workspace.root, "notes.txt"));
  });

  it("where the run's directory is missing, refuses every use with the reason and never makes it", async () => {
    const workspace = await Workspace.ofRun(root, "run_elsewhere");
    expect(() => workspace.directory()).toThrow(/run_elsewhere of run run_elsewhere is not on this machine; expected .*workspaceRoot/);
    await expect(workspace.resolve("notes.txt")).rejects.toSatisfy((error) => ReinError.hasCode(error, "workspace_invalid"));
    await expect(workspace.resolve("notes.txt")).rejects.toThrow(/is not on this machine/);
    await expect(workspace.openFile("notes.txt", "write")).rejects.toThrow(/is not on this machine/);
    await expect(workspace.readDirectory(".")).rejects.toThrow(/is not on this machine/);
    await expect(access(join(root, "run_elsewhere"))).rejects.toThrow(/ENOENT/);
  });

  it("refuses a run id that is not a safe directory name, as forRun does", async () => {
    await expect(Workspace.ofRun(root, "../escape")).rejects.toThrow(/not a safe directory name/);
  });
});
