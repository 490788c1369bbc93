import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileGlob, MAX_ALTERNATIVES } from "@rein/guard";
import { builtinTools } from "../src/builtin/builtin-tools.ts";
import { call, harness } from "../src/testing/executor-harness.ts";
import { workspacePerTest } from "../src/testing/workspace-per-test.ts";

const matches = (pattern: string, value: string) => compileGlob(pattern)(value);

describe("globs", () => {
  it.each([
    ["src/**", "src", true],
    ["src/**", "src/a/b.ts", true],
    ["src/**", "srcx/a", false],
    ["**/.env", ".env", true],
    ["**/.env", "config/deep/.env", true],
    ["src/**", "src/.env", true],
    ["*.ts", "a/b.ts", false],
    ["**/*.ts", "a/b.ts", true],
    ["src/**/*.{ts,js}", "src/x/y.js", true],
    ["{src,lib}/**", "lib/q", true],
    ["a?c", "abc", true],
    ["[a-c]x", "bx", true],
    ["[!a]x", "ax", false],
    ["\\*", "*", true],
    ["\\*", "a", false],
    ["*.example.com", "api.example.com", true],
    ["srv__*", "srv__echo", true],
    ["**", ".", false],
    [".", ".", true],
  ])("%s against %s is %s", (pattern, value, expected) => {
    expect(matches(pattern, value)).toBe(expected);
  });

  it("matches a pattern built to backtrack without backtracking", () => {
    // A regular expression compiled from this glob takes minutes on sixty a's.
    expect(matches(`${"*a".repeat(20)}y`, "a".repeat(60))).toBe(false);
    expect(matches(`${"**/".repeat(60)}y`, `${"a/".repeat(60)}b`)).toBe(false);
  });

  it("refuses a brace pattern that expands past the limit", () => {
    expect(() => compileGlob("{a,b}".repeat(12))).toThrow(`more than ${MAX_ALTERNATIVES} alternatives`);
  });
});

describe("search_files with a hostile glob", () => {
  const temp = workspacePerTest();

  it("answers instead of spinning on a name written to make a glob backtrack", async () => {
    await writeFile(join(temp.workspace.root, "a".repeat(60)), "needle\n");
    await writeFile(join(temp.workspace.root, "aay"), "needle\n");
    const { run } = harness({ tools: builtinTools(), surface: [{ name: "search_files", scope: {} }], workspace: temp.workspace });
    const outcome = await run(call("search_files", { query: "needle", glob: `${"*a".repeat(8)}y` }));
    expect(outcome.observation.content).toContain("returned nothing");
    const found = await run(call("search_files", { query: "needle", glob: "*a*y" }));
    expect(found.observation.content).toContain("aay:1: needle");
  });
});
