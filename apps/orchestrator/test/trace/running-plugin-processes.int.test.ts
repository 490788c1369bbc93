import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createRuntime, ReinConfig } from "@rein/runtime";
import { traceEventOf } from "@rein/runtime/testing";
import { cliEnv, prefixesCleanedAfterAll, rein } from "../support/cli.ts";
import { runningPluginProcesses } from "../../src/trace/running-plugin-processes.ts";

const started = (plugin: string, pid: number, seq: number) =>
  traceEventOf("plugin.process_started", { plugin, sandbox: "bwrap", pid, restart: false }, { seq, runId: "run_p" });
const exited = (plugin: string, pid: number, seq: number) =>
  traceEventOf(
    "plugin.process_exited",
    { plugin, sandbox: "bwrap", pid, exitCode: 0, signal: null, killedFor: "idle", unexpected: false },
    { seq, runId: "run_p" },
  );

// A run's idle plugin process stops up to a minute after the run ends, and its exit joins the trace then.
describe("the plugin processes a trace saw start and not yet exit", () => {
  it("names each process started and not exited, so an export made now can say its trace will still grow", () => {
    const events = [started("weather", 101, 1), started("search", 202, 2), exited("weather", 101, 3), started("weather", 303, 4)];
    expect(runningPluginProcesses(events)).toEqual([
      { plugin: "search", pid: 202 },
      { plugin: "weather", pid: 303 },
    ]);
  });

  it("names none once every process has exited", () => {
    expect(runningPluginProcesses([started("weather", 101, 1), exited("weather", 101, 2)])).toEqual([]);
  });
});

describe("rein trace export of a run whose plugin process has not exited", () => {
  const prefixes = prefixesCleanedAfterAll();

  it("says the trace will still grow, naming the process", async () => {
    const env = cliEnv();
    prefixes.push(env.REIN_PREFIX as string);
    const runtime = createRuntime(ReinConfig.parse({ prefix: env.REIN_PREFIX, redisUrl: env.REDIS_URL }));
    try {
      await runtime.trace.append({
        runId: "run_p",
        kind: "plugin.process_started",
        payload: { plugin: "weather", sandbox: "bwrap", pid: 101, restart: false },
      });
    } finally {
      await runtime.close();
    }
    const output = join(mkdtempSync(join(tmpdir(), "rein-export-")), "run.jsonl");
    const result = await rein(["trace", "export", "run_p", "-o", output], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/plugin process\(es\) weather \(pid 101\) had not exited yet; each adds a plugin\.process_exited event/);
  }, 60_000);
});
