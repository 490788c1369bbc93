import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { QUEUE_NAMES } from "@rein/runtime";
import { cliEnv, cliRuntimesClosedAfterAll } from "../support/cli.ts";

const ORCHESTRATOR = resolve(import.meta.dirname, "../..");
const DOCS = resolve(ORCHESTRATOR, "../../docs");

/** The fenced blocks of `language` in a docs page's section, in order. */
function blocks(page: string, heading: string, language: string): string[] {
  const text = readFileSync(join(DOCS, page), "utf8");
  const start = text.indexOf(heading);
  if (start < 0) throw new Error(`${page} has no section ${heading}`);
  const section = text.slice(start).split(/\n#{2,3} /)[0] as string;
  return [...section.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, "g"))].map((match) => match[1] ?? "");
}

const env = cliEnv();
const runtimeFor = cliRuntimesClosedAfterAll();
// Inside the orchestrator package, so the program's `@rein/*` imports resolve as an installed project's would.
const dir = mkdtempSync(join(ORCHESTRATOR, ".library-page-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("docs/library.md", () => {
  it("its program, with the scripted config and script of docs/models.md, runs a goal to done", async () => {
    const [program] = blocks("library.md", "## A complete program", "ts");
    const [config] = blocks("models.md", "## Offline: the scripted provider", "json");
    const [script] = blocks("models.md", "### A script for your own goal", "json");
    writeFileSync(join(dir, "main.ts"), program ?? "");
    writeFileSync(join(dir, "rein.config.json"), config ?? "");
    writeFileSync(join(dir, "script.json"), script ?? "");
    const run = spawnSync(process.execPath, ["--conditions=@rein/source", "--import", "tsx", "main.ts"], {
      cwd: dir,
      env,
      encoding: "utf8",
      timeout: 150_000,
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^run run_[a-z0-9]+ submitted$/m);
    expect(run.stdout).toMatch(/^\d+ run\.done$/m);
    expect(run.stdout).toMatch(/^run run_[a-z0-9]+: done$/m);
    expect(run.stdout).toContain("hello.txt now contains hello.");
    // The program holds the packet key, so it takes its run in itself: no goal.submitted job on the control queue.
    const runId = /^run (run_[a-z0-9]+) submitted$/m.exec(run.stdout)?.[1] ?? "";
    const runtime = runtimeFor(env);
    const controlEvents = await runtime.redis.xrange(runtime.queues.ofRun(QUEUE_NAMES.control, runId).toKey("events"), "-", "+");
    const added = controlEvents.filter(([, fields]) => fields[0] === "event" && fields[1] === "added");
    expect(added).toEqual([]);
  }, 180_000);
});
