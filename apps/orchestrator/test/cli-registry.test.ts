import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { afterEach, describe, expect, expectTypeOf, it, vi } from "vitest";
import { GLOBAL_FLAGS, type ParsedArgs } from "../src/cli/command-spec.ts";
import type { LESSONS, MCP, RUN, STATUS, TRACE } from "../src/cli/command-specs.ts";
import { main } from "../src/cli/main.ts";
import { COMMANDS } from "../src/cli/registry.ts";

const CLI_DIR = resolve(import.meta.dirname, "../src/cli");

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Runs the CLI's main in this process, capturing what it prints. */
async function rein(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  try {
    return { code: await main(argv), stdout, stderr };
  } finally {
    vi.restoreAllMocks();
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the CLI's command registry", () => {
  it("names each command once", () => {
    const names = COMMANDS.map((entry) => entry.spec.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(COMMANDS.map((entry) => [entry.spec.name, entry] as const))("loads a handler for `%s`", async (_name, entry) => {
    expect(typeof (await entry.load())).toBe("function");
  });

  // `rein --help` and `rein <command> --help` must not load a command's module (or Rein's packages): they import only these.
  it("keeps the help path free of command modules: main, the registry and the declarations import nothing else at load", () => {
    const allowed = new Set(
      ["main.ts", "registry.ts", "command-spec.ts", "command-specs.ts", "command-help.ts", "output.ts"].map((file) => join(CLI_DIR, file)),
    );
    for (const file of allowed) {
      const source = readFileSync(file, "utf8");
      const imports = [...source.matchAll(/^import (?!type )[^;]*? from "([^"]+)";/gm)].map((match) => match[1] as string);
      for (const specifier of imports) {
        if (specifier.startsWith("node:")) continue;
        expect(allowed.has(resolve(dirname(file), specifier)), `${file} imports ${specifier} at load`).toBe(true);
      }
    }
  });
});

describe("rein --help and each command's --help", () => {
  it("lists every command", async () => {
    const help = await rein("--help");
    expect(help.code).toBe(0);
    for (const entry of COMMANDS) expect(help.stdout).toContain(`  ${entry.spec.name}`);
  });

  it.each(COMMANDS.map((entry) => [entry.spec.name, entry] as const))(
    "`rein %s --help` lists every option it takes, its own and the global ones",
    async (name, entry) => {
      const help = await rein(name, "--help");
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`usage: rein ${name}`);
      expect(help.stdout).toContain(entry.spec.summary);
      for (const [flag, declared] of Object.entries({ ...entry.spec.flags, ...GLOBAL_FLAGS })) {
        expect(help.stdout).toContain(`--${flag}`);
        expect(help.stdout).toContain(declared.help);
      }
    },
  );

  it.each(COMMANDS.map((entry) => [entry.spec.name, entry] as const))(
    "`rein %s --help` lists its subcommands and positional arguments with what each is",
    async (name, entry) => {
      const help = (await rein(name, "--help")).stdout;
      for (const [subcommand, declared] of Object.entries(entry.spec.subcommands ?? {})) {
        expect(help).toContain(`usage: rein ${name}`);
        expect(help).toMatch(new RegExp(`\\n  ${subcommand}\\b.* ${escapeRegExp(declared.summary)}`));
      }
      for (const arg of [
        ...(entry.spec.args ?? []),
        ...Object.values(entry.spec.subcommands ?? {}).flatMap((subcommand) => subcommand.args),
      ]) {
        expect(help).toMatch(new RegExp(`\\n  ${escapeRegExp(arg.value)} +${escapeRegExp(arg.help)}`));
      }
    },
  );

  it("shows a flag's value, bounds and repeatability", async () => {
    const help = (await rein("worker", "--help")).stdout;
    expect(help).toMatch(/--role plan\|step\|evaluate\|control\s+a role to run \(at least one\); repeatable/);
    expect(help).toMatch(/--lock-ms MS +.*\(a whole number, at least 1000\)/);
    expect((await rein("trace", "-h")).stdout).toContain("-o, --output FILE");
  });
});

describe("mistakes on the command line", () => {
  it("suggests the command meant by a typo", async () => {
    const result = await rein("stauts", "run_1");
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^rein: unknown command "stauts"; did you mean "rein status"\?; expected one of: run, diff/);
  });

  it("suggests the flag meant by a typo, with the command's usage", async () => {
    const result = await rein("run", "fix it", "--wokspace", ".");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("rein run: unknown option --wokspace; did you mean --workspace?");
    expect(result.stderr).toContain('usage: rein run "<goal>"');
  });

  it("refuses a bad value by the flag's declared type before any work", async () => {
    expect((await rein("worker", "--role", "plan", "--role", "planner")).stderr).toContain(
      "rein worker: --role planner: expected one of plan, step, evaluate, control",
    );
    expect((await rein("serve", "--concurrency", "0")).stderr).toContain("rein serve: --concurrency 0: expected a whole number at least 1");
    expect((await rein("serve", "--http", "99999")).stderr).toContain("rein serve: --http 99999: expected a whole number from 0 to 65535");
    const limit = await rein("runs", "list", "--limit", "ten");
    expect(limit.code).toBe(2);
    expect(limit.stderr).toContain("rein runs: --limit ten: expected a whole number at least 1");
  });

  it("suggests the subcommand meant by a typo, before any work", async () => {
    const mcp = await rein("mcp", "lst");
    expect(mcp.code).toBe(2);
    expect(mcp.stderr).toMatch(
      /^rein mcp: unknown subcommand "lst"; did you mean "rein mcp list"\?; expected one of: list, check; usage: rein mcp list {2}\| {2}rein mcp check <name>/,
    );
    expect((await rein("trace", "exprot", "run_1")).stderr).toContain(
      'rein trace: unknown subcommand "exprot"; did you mean "rein trace export"?',
    );
    expect((await rein("lessons", "rn", "lsn_1")).stderr).toContain(
      'rein lessons: unknown subcommand "rn"; did you mean "rein lessons rm"?',
    );
    expect((await rein("keys")).stderr).toContain("rein keys: expected a subcommand: generate; usage: rein keys generate");
  });

  it("names a missing positional argument and what it is, before any work", async () => {
    const status = await rein("status");
    expect(status.code).toBe(2);
    expect(status.stderr).toMatch(
      /^rein status: missing <runId>: a run id, as rein run or rein submit printed it; usage: rein status <runId>/,
    );
    expect((await rein("mcp", "check")).stderr).toContain("rein mcp: missing <name>: a server's name in the config's mcp");
    expect((await rein("reply", "run_1", "")).stderr).toContain('rein reply: missing "<instruction>"');
  });

  it("refuses an argument too many, with a hint for an unquoted goal", async () => {
    const result = await rein("run", "fix", "the", "bug");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('rein run: unexpected argument "the" (quote an argument that has spaces); usage: rein run "<goal>"');
  });

  it("types each handler's arguments from its declaration", () => {
    expectTypeOf<ParsedArgs<typeof STATUS>>().toEqualTypeOf<{ runId: string }>();
    expectTypeOf<ParsedArgs<typeof RUN>>().toEqualTypeOf<{ goal: string | undefined }>();
    expectTypeOf<Extract<ParsedArgs<typeof MCP>, { subcommand: "check" }>["name"]>().toEqualTypeOf<string>();
    expectTypeOf<ParsedArgs<typeof TRACE>["subcommand"]>().toEqualTypeOf<"export" | "import" | undefined>();
    expectTypeOf<Extract<ParsedArgs<typeof LESSONS>, { subcommand: "rm" }>["lessonId"]>().toEqualTypeOf<string>();
  });

  it("refuses a string flag given no value", async () => {
    const result = await rein("status", "--config");
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^rein status: Option '--config <value>' argument missing/);
  });
});
