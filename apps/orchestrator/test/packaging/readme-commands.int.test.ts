import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliEnv } from "../support/cli.ts";

const ROOT = resolve(import.meta.dirname, "../../../..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");

/** The lines of the README's sh blocks. */
const shellLines = [...README.matchAll(/```sh\n([\s\S]*?)```/g)]
  .flatMap((block) => (block[1] ?? "").split("\n"))
  .filter((line) => line.trim() !== "");

/** Every `rein` subcommand the README's sh blocks show, in the form they show it. */
const reinCommands = [
  ...new Set(
    shellLines.flatMap((line) =>
      [...line.matchAll(/(?:^|(\S+)\s+)rein ([a-z]+)/g)].map((match) => `${match[1] ?? ""} rein ${match[2]}`.trim()),
    ),
  ),
];

// A `pnpm` that is not there: what a machine without a global pnpm has on PATH.
const shadow = mkdtempSync(join(tmpdir(), "rein-no-pnpm-"));
writeFileSync(join(shadow, "pnpm"), "#!/bin/sh\necho 'pnpm: command not found' >&2\nexit 127\n");
chmodSync(join(shadow, "pnpm"), 0o755);
afterAll(() => rmSync(shadow, { recursive: true, force: true }));

const run = (command: string, args: string[], env: NodeJS.ProcessEnv) =>
  spawnSync(command, args, { cwd: ROOT, env, encoding: "utf8", timeout: 120_000 });

describe("the README's commands", () => {
  it("show rein only as `npx rein …`, which needs no pnpm", () => {
    expect(reinCommands.length).toBeGreaterThan(10);
    expect(reinCommands.filter((command) => !command.startsWith("npx rein "))).toEqual([]);
    expect(shellLines.filter((line) => /(^|[;&|]\s*)pnpm\s/.test(line.trim()))).toEqual([]);
  });

  it("each documented `npx rein <command> --help` works from the repository root without pnpm on PATH", () => {
    const env = { ...cliEnv(), PATH: `${shadow}:${process.env.PATH}` };
    const failures: string[] = [];
    for (const command of reinCommands) {
      const [, , name] = command.split(" ");
      const result = run("npx", ["--offline", "rein", name as string, "--help"], env);
      if (result.status !== 0 || !result.stdout.includes(`usage: rein ${name}`))
        failures.push(`${command} --help: exit ${result.status}: ${result.stdout}${result.stderr}`);
    }
    expect(failures).toEqual([]);
  }, 600_000);

  it("every `npm run <script>` the README shows is a script of the root package", () => {
    const scripts = Object.keys(
      (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts,
    );
    const documented = [
      ...new Set(shellLines.flatMap((line) => [...line.matchAll(/npm run ([a-z:]+)/g)].map((match) => match[1] as string))),
    ];
    expect(documented.length).toBeGreaterThan(3);
    expect(documented.filter((script) => !scripts.includes(script))).toEqual([]);
  });

  it("`npm run typecheck -- --help` reaches turbo through the quick start's pnpm", () => {
    const result = run("npm", ["run", "typecheck", "--", "--help"], process.env);
    expect(result.stderr).not.toMatch(/with-pnpm:/);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/turbo run/);
  }, 180_000);
});
