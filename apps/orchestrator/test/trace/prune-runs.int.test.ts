import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scriptedOverrides } from "../../src/cli/run-command.ts";
import { loadExample } from "../../src/examples/load-example.ts";
import { runPrivately } from "../../src/replay/in-process-run.ts";
import { parseAge, pruneRuns } from "../../src/trace/prune-runs.ts";
import { ApprovalStore } from "@rein/runtime";
import { createTestRuntime, type TestRuntime } from "@rein/runtime/testing";

describe("rein runs prune", () => {
  let runtime: TestRuntime;
  beforeEach(async () => {
    runtime = await createTestRuntime(scriptedOverrides(await loadExample("bugfix")));
  });
  afterEach(async () => {
    await runtime.cleanup();
  });

  it("deletes an old run's state, trace, blobs, artifacts and workspace, and keeps a newer one", async () => {
    const example = await loadExample("bugfix");
    const { state } = await runPrivately(runtime, { goal: example.goal, workspaceDir: example.seedDir });
    const unreferenced = await runtime.artifacts.put(state.runId, "unreferenced");
    const referenced = await runtime.artifacts.put(state.runId, "referenced");
    await runtime.trace.append({
      runId: state.runId,
      stepId: "s1",
      kind: "observation.truncated",
      payload: {
        callId: "c1",
        tool: "read_file",
        index: 0,
        shownLines: 1,
        totalLines: 2,
        shownBytes: 1,
        totalBytes: 2,
        artifactId: referenced,
      },
    });
    const created = Date.parse(state.createdAt);
    const approvals = new ApprovalStore(runtime.redis, runtime.keys, { ttlSeconds: 3600 });
    const approval = await approvals.create(
      state.runId,
      "s1",
      { tool: "restart_service", args: { service: "api" }, scope: { services: ["api"] } },
      "1:call_restart",
    );

    const tooEarly = await pruneRuns(runtime, { olderThanMs: parseAge("1h"), now: new Date(created + 30 * 60_000) });
    expect(tooEarly.pruned).toEqual([]);

    const dry = await pruneRuns(runtime, { olderThanMs: parseAge("1h"), now: new Date(created + 2 * 3_600_000), dryRun: true });
    expect(dry.pruned).toEqual([state.runId]);
    expect(await runtime.runs.get(state.runId)).not.toBeNull();

    const done = await pruneRuns(runtime, { olderThanMs: parseAge("1h"), now: new Date(created + 2 * 3_600_000) });
    expect(done.pruned).toEqual([state.runId]);
    expect(await runtime.runs.get(state.runId)).toBeNull();
    expect(await runtime.trace.read(state.runId)).toEqual([]);
    expect(await runtime.trace.readBlobs(state.runId)).toEqual({});
    expect(await runtime.artifacts.get(referenced)).toBeNull();
    // Artifacts are indexed by run, so one no event references goes too.
    expect(await runtime.artifacts.get(unreferenced)).toBeNull();
    expect(existsSync(join(runtime.config.workspaceRoot, state.runId))).toBe(false);
    expect(await approvals.get(approval.approvalId)).toBeNull();
    expect(await approvals.list({ runId: state.runId })).toEqual([]);
  });

  it("parses ages and refuses what it does not understand", () => {
    expect(parseAge("30d")).toBe(30 * 86_400_000);
    expect(parseAge("90m")).toBe(90 * 60_000);
    expect(() => parseAge("30 days")).toThrow(/expected a number and a unit/);
  });
});
