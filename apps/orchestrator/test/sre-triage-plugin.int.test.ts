import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TraceEvent } from "@rein/contracts/run";
import { cliEnv, cliRuntimesClosedAfterAll, rein } from "./support/cli.ts";

const runtimeFor = cliRuntimesClosedAfterAll();

const READ_TOOLS = ["inspect_deployments", "query_metrics", "read_host_state", "search_logs"];

describe("examples/sre-triage-plugin: the read-only tools come from a Python plugin", { timeout: 120_000 }, () => {
  it("runs end to end under the sandbox, traces each plugin call like a built-in's, and leaves no process", async () => {
    const env = cliEnv();
    const runtime = runtimeFor(env);

    const run = await rein(["run", "--example", "sre-triage-plugin", "--approve"], env);
    expect(run.code, run.stderr).toBe(0);
    const runId = /run (run_[a-z0-9]+) submitted/.exec(run.stdout)?.[1] as string;
    const state = await runtime.runs.require(runId);
    const events: TraceEvent[] = await runtime.trace.read(runId);
    expect(state.status).toBe("done");

    const executed = events.filter((event) => event.kind === "tool.executed");
    for (const tool of [...READ_TOOLS, "restart_service"]) {
      const call = executed.find((event) => event.payload.tool === tool);
      expect(call?.payload, tool).toMatchObject({ status: "ok", plugin: "incident-python", pluginVersion: "1.0.0", sandbox: "bubblewrap" });
      expect(call?.outputHash, tool).toMatch(/^sha256:/);
    }
    // The same stages as any tool: called, permission, result, observation.
    for (const kind of [
      "tool.called",
      "permission.decided",
      "tool.result",
      "observation.made",
      "approval.consumed",
      "plugin.process_started",
    ]) {
      expect(
        events.some((event) => event.kind === kind),
        kind,
      ).toBe(true);
    }
    const cited = new Set(
      (state.result?.answer?.claims ?? []).flatMap((claim) =>
        claim.evidence.map(
          (id) => events.find((event) => event.kind === "observation.made" && event.payload.observationId === id)?.payload.tool,
        ),
      ),
    );
    expect([...cited].sort()).toEqual(READ_TOOLS);

    // The write went to the run's workspace, from inside the sandbox.
    const restarts = join(env.REIN_WORKSPACE_ROOT as string, runId, "restarts.log");
    expect(existsSync(restarts)).toBe(true);
    expect(readFileSync(restarts, "utf8")).toContain("restarted payment-api");
    expect(execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })).not.toMatch(/incident-python|plugin\.py/);
  });
});
