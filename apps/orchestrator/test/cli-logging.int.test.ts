import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliEnv, prefixesCleanedAfterAll, rein } from "./support/cli.ts";

const prefixes = prefixesCleanedAfterAll();

const tracked = (env: NodeJS.ProcessEnv) => {
  prefixes.push(env.REIN_PREFIX as string);
  return env;
};

const runIdOf = (stdout: string) => /run (run_[a-z0-9]+) submitted/.exec(stdout)?.[1];
const jsonLines = (text: string) => text.split("\n").filter((line) => line.startsWith("{"));

describe("rein's logs", () => {
  it("refuses an unknown REIN_LOG_LEVEL in one line naming the valid levels, exit 2", async () => {
    const result = await rein(["status", "run_none"], tracked(cliEnv({ REIN_LOG_LEVEL: "verbose" })));
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      'rein status: REIN_LOG_LEVEL "verbose" is not a log level; expected one of: fatal, error, warn, info, debug, trace, silent',
    );
  });

  it("with --log-file, writes the run's lifecycle at info to the file and none of it to stdout or stderr", async () => {
    const { REIN_LOG_LEVEL: _level, ...env } = tracked(cliEnv());
    const logFile = join(mkdtempSync(join(tmpdir(), "rein-logs-")), "nested", "rein.log");
    const run = await rein(["run", "--example", "bugfix", "--log-file", logFile], env);
    expect(run.code).toBe(0);
    const runId = runIdOf(run.stdout);
    expect(runId).toBeDefined();
    expect(jsonLines(run.stdout)).toEqual([]);
    expect(jsonLines(run.stderr)).toEqual([]);
    const logged = readFileSync(logFile, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { msg: string; role?: string; runId?: string });
    const lifecycle = logged.filter((line) => line.runId === runId).map((line) => `${line.role ?? "intake"}: ${line.msg}`);
    for (const expected of [
      "intake: run submitted",
      "planner: plan ready",
      "controller: step dispatched",
      "worker: step started",
      "worker: step finished",
      "evaluator: verdict",
      "controller: run ended",
    ]) {
      expect(lifecycle).toContain(expected);
    }
  }, 120_000);

  it("at REIN_LOG_LEVEL=info without a file, logs go to stderr and the progress on stdout stays clean", async () => {
    const run = await rein(["run", "--example", "bugfix"], tracked(cliEnv({ REIN_LOG_LEVEL: "info" })));
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/: done \(the evaluator verified the answer\)/);
    expect(jsonLines(run.stdout)).toEqual([]);
    const messages = jsonLines(run.stderr).map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages).toContain("run submitted");
    expect(messages).toContain("run ended");
  }, 120_000);
});
