import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Workspace } from "@rein/tools";
import { compileCheckPattern } from "../src/check-pattern.ts";
import { readCheckedFile } from "../src/file-check.ts";

// What a planner's file and pattern checks may touch, and for how long (issue 28 case 7).

describe("readCheckedFile", () => {
  let dir: string;
  let workspace: Workspace;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "rein-file-check-"));
    workspace = await Workspace.open(join(dir, "ws"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reads a regular file of the workspace", async () => {
    await writeFile(join(workspace.root, "notes.txt"), "ready\n");
    expect(await readCheckedFile(workspace, "notes.txt")).toEqual({ ok: true, text: "ready\n" });
  });

  it("refuses a FIFO at once instead of waiting for a writer", async () => {
    execFileSync("mkfifo", [join(workspace.root, "pipe")]);
    expect(await readCheckedFile(workspace, "pipe")).toEqual({
      ok: false,
      problem: "it is a FIFO (named pipe), and a file check reads regular files only",
    });
  });

  it("refuses a directory", async () => {
    await mkdir(join(workspace.root, "src"));
    expect(await readCheckedFile(workspace, "src")).toEqual({
      ok: false,
      problem: "it is a directory, and a file check reads regular files only",
    });
  });

  it("refuses a link that leads out of the workspace, and a device reached through one", async () => {
    await writeFile(join(dir, "outside.txt"), "host secret");
    await symlink(join(dir, "outside.txt"), join(workspace.root, "leak.txt"));
    await symlink("/dev/zero", join(workspace.root, "zero"));
    for (const path of ["leak.txt", "zero", "/etc/hostname"]) {
      const read = await readCheckedFile(workspace, path);
      expect(read.ok).toBe(false);
      expect(read.ok ? "" : read.problem).toContain("expected a path inside the run's workspace");
    }
  });

  it("refuses a file past the size bound without reading it", async () => {
    await writeFile(join(workspace.root, "big.log"), "x".repeat(2_000));
    expect(await readCheckedFile(workspace, "big.log", { maxBytes: 1_000 })).toEqual({
      ok: false,
      problem: "it is 2000 bytes, and a file check reads at most 1000",
    });
  });
});

describe("compileCheckPattern", () => {
  it("matches as a JavaScript pattern would, anywhere in the text", () => {
    const pattern = compileCheckPattern("tests? (passed|ok)\\b");
    expect(pattern.ok && pattern.test("all tests passed today")).toBe(true);
    expect(pattern.ok && pattern.test("tests failed")).toBe(false);
  });

  it("answers a catastrophic pattern on forty a and a b", () => {
    const pattern = compileCheckPattern("^(a+)+$");
    expect(pattern.ok && pattern.test(`${"a".repeat(40)}b`)).toBe(false);
    expect(pattern.ok && pattern.test("a".repeat(40))).toBe(true);
  });

  it.each([
    ["a backreference", "^(a+)\\1$", "invalid escape sequence"],
    ["a lookahead", "foo(?=bar)", "invalid or unsupported Perl syntax"],
    ["a lookbehind", "(?<=\\$)\\d+", "invalid named capture"],
  ])("refuses %s with the reason and what is expected", (_label, source, reason) => {
    const pattern = compileCheckPattern(source);
    expect(pattern.ok).toBe(false);
    expect(pattern.ok ? "" : pattern.problem).toContain(reason);
    expect(pattern.ok ? "" : pattern.problem).toContain("expected an RE2 pattern");
  });

  it("refuses an overlong pattern before compiling it", () => {
    const pattern = compileCheckPattern("a".repeat(5_000));
    expect(pattern).toEqual({ ok: false, problem: "the pattern is 5000 characters long; expected at most 2000" });
  });
});
