import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModelScriptInput, ScriptedProvider } from "@rein/models";
import { findTraceEvent } from "@rein/trace";
import { plannerOfSteps } from "@rein/models/testing";
import { createTestRuntime, type TestRuntime } from "@rein/runtime/testing";
import { runPrivately } from "../../src/replay/in-process-run.ts";
import { openIsolatedRuntime } from "../../src/replay/isolated-runtime.ts";
import { type ReplayOptions, replayRun } from "../../src/replay/replay-run.ts";
import { loadBundle, type TraceBundle } from "../../src/trace/trace-bundle.ts";
import { writeExport } from "../../src/trace/trace-files.ts";
import { cliEnv, prefixesCleanedAfterAll, rein } from "../support/cli.ts";

/**
 * Issue 28.10: `rein replay run.jsonl` with nobody to approve re-ran a
 * recorded destructive `run_command` for real, because the file's recorded
 * `approval.decided` events were replayed in order. The command here
 * appends a line to a marker file outside any workspace (the deployment
 * runs unsandboxed, as one that set `sandbox: "none"` does), so whatever a
 * replay really runs shows in that file.
 */
const markerDir = mkdtempSync(join(tmpdir(), "rein-replay-marker-"));
const marker = join(markerDir, "marker.txt");
const markerLines = () => (existsSync(marker) ? readFileSync(marker, "utf8").split("\n").filter(Boolean).length : 0);

const GOAL = "Mark that the deployment ran";
const script: ModelScriptInput = {
  planner: plannerOfSteps(
    [
      {
        title: "Write the marker",
        objective: "Append a line to the marker file with run_command.",
        tools: ["run_command"],
        output_contract: { description: "one line", format: "text" },
      },
    ],
    { answer: "the marker was written", claims: [{ text: "the marker was written", evidence: ["{{evidence:run_command}}"] }], gaps: [] },
  ),
  worker: [
    {
      match: "Task: Write the marker",
      turns: [
        {
          toolCalls: [
            {
              name: "run_command",
              input: { command: "node", args: ["-e", `require("fs").appendFileSync(${JSON.stringify(marker)}, "ran\\n")`] },
            },
          ],
        },
        { text: "the marker was written" },
      ],
    },
  ],
};

// Whole runs, each replayed through the controller, planner, worker and evaluator; CLI children start through tsx on a loaded machine.
describe("replaying a run whose destructive run_command a person approved in the recording", { timeout: 240_000 }, () => {
  let runtime: TestRuntime;
  let bundle: TraceBundle;
  let file: string;
  const configFile = join(markerDir, "rein.config.json");
  const prefixes = prefixesCleanedAfterAll();

  beforeAll(async () => {
    runtime = await createTestRuntime({ sandbox: "none" });
    const providers = {
      planner: new ScriptedProvider(script, { name: "planner" }),
      worker: new ScriptedProvider(script, { name: "worker" }),
      judge: new ScriptedProvider(script, { name: "judge" }),
    };
    const { state } = await runPrivately(runtime, {
      goal: { text: GOAL, tools: [{ name: "run_command", scope: { commands: ["node"] } }] },
      providers,
      decideApproval: () => ({ decision: "approved", approver: "test:oncall" }),
    });
    expect(state.status, state.stopReason).toBe("done");
    bundle = await loadBundle(runtime, state.runId);
    file = join(markerDir, "run.jsonl");
    await writeExport(bundle, file);
    writeFileSync(configFile, JSON.stringify({ sandbox: "none" }));
  });
  afterAll(async () => {
    await runtime?.cleanup();
    rmSync(markerDir, { recursive: true, force: true });
  });

  async function replayed(options: ReplayOptions) {
    const scratch = await openIsolatedRuntime(runtime.config, "replay");
    try {
      return await replayRun(scratch, bundle, options);
    } finally {
      await scratch.discard();
    }
  }

  it("was recorded with the effect and the person's approval", () => {
    expect(markerLines()).toBe(1);
    expect(findTraceEvent(bundle.events, "approval.decided")?.payload).toMatchObject({ decision: "approved", approver: "test:oncall" });
  });

  it("rein replay run.jsonl, with nobody to approve, writes nothing and reports the call answered from the recording", async () => {
    const env = cliEnv();
    prefixes.push(env.REIN_PREFIX ?? "");
    const replay = await rein(["replay", file, "--config", configFile], env);
    expect(replay.code, replay.stderr).toBe(0);
    expect(markerLines()).toBe(1);
    expect(replay.stdout).toMatch(/^identical: /);
    expect(replay.stdout).toContain("answered from the recording, not executed: run_command (s1 #");
  });

  it("a replay of the run by id stubs it by default too", async () => {
    const report = await replayed({});
    expect(markerLines()).toBe(1);
    expect(report.identical).toBe(true);
    expect(report.stubbedCalls).toEqual([expect.objectContaining({ stepId: "s1", tool: "run_command" })]);
    expect(report.waitingApproval).toBeNull();
  });

  it("rein replay --run-tools with nobody to approve: the call waits for a fresh approval, the recording's is not used, nothing is written", async () => {
    const env = cliEnv();
    prefixes.push(env.REIN_PREFIX ?? "");
    const replay = await rein(["replay", file, "--run-tools", "--config", configFile], env);
    expect(markerLines()).toBe(1);
    expect(replay.code).toBe(1);
    expect(replay.stdout).toMatch(/stopped: run_command in step s1 waits for a person's approval \(apr_\w+\)/);
  });

  it("with tools re-run, a call runs only on the person's fresh decision: a denial leaves the marker alone, an approval writes it", async () => {
    const denied = await replayed({ mode: "real", decide: () => ({ decision: "denied", approver: "test:replayer", reason: "not again" }) });
    expect(markerLines()).toBe(1);
    expect(denied.identical).toBe(false);

    const asked: string[] = [];
    const approved = await replayed({
      mode: "real",
      decide: (request) => {
        asked.push(`${request.stepId} ${request.tool}`);
        return { decision: "approved", approver: "test:replayer" };
      },
    });
    expect(asked).toEqual(["s1 run_command"]);
    expect(markerLines()).toBe(2);
    expect(approved.stubbedCalls).toEqual([]);
  });
});
