import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Redactor } from "@rein/guard";
import { defineTool, createToolExecutor, ToolRegistry, type Workspace } from "@rein/tools";
import { TraceLog } from "../../src/trace/trace-log.ts";
import { ArtifactStore } from "../../src/stores/artifact-store.ts";
import { call } from "@rein/tools/testing";
import { type RedisForTest, workspaceAndRedis } from "./redis-harness.ts";

let workspace: Workspace;
let env: RedisForTest;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ workspace, env, cleanup } = await workspaceAndRedis()));
afterEach(() => cleanup());

const lookup = defineTool({
  name: "lookup",
  description: "returns a record",
  effect: "read",
  input: z.object({ email: z.string(), note: z.string().optional() }),
  run: async (args) => `user ${args.email} has password hunter2-secret\n${"row\n".repeat(500)}`,
});

/** One call of `lookup` whose arguments hold an email and a secret, and whose output holds the secret, traced to `trace`. */
async function lookupThrough(trace: TraceLog, redactor: Redactor, runId: string) {
  const executor = createToolExecutor({
    registry: new ToolRegistry([lookup]),
    trace,
    artifacts: new ArtifactStore(env.redis, env.keys),
    config: { policy: [], observations: { maxBytes: 1000, maxLines: 20 } },
    redactor,
  });
  return executor.execute(call("lookup", { email: "ann@example.com", note: "sent with hunter2-secret" }), 0, {
    runId,
    stepId: "step_1",
    attempt: 1,
    parentStepId: "step_0",
    surface: [{ name: "lookup", scope: {} }],
    policy: [],
    workspace,
    signal: new AbortController().signal,
    budget: { maxToolCalls: 5, deadline: Date.now() + 60_000 },
    callsSoFar: 0,
  });
}

describe("executor with the real TraceLog", () => {
  it("writes every stage as a valid, redacted trace event, and shows the trace's observers the same", async () => {
    const redactor = new Redactor({ secrets: ["hunter2-secret"] });
    const observed: string[] = [];
    const trace = new TraceLog(env.redis, env.keys, {
      redact: redactor.redactJson,
      observe: (event) => observed.push(JSON.stringify(event)),
    });
    const outcome = await lookupThrough(trace, redactor, "run_trace");
    expect(outcome.observation.truncated?.totalLines).toBe(501);
    const events = await trace.read("run_trace");
    expect(events.map((event) => event.kind)).toEqual([
      "tool.called",
      "permission.decided",
      "tool.executed",
      "observation.truncated",
      "observation.flagged",
      "tool.result",
      "observation.made",
    ]);
    for (const event of events)
      expect(event).toMatchObject({ stepId: "step_1", parentStepId: "step_0", inputHash: outcome.record.argsHash });
    const stored = JSON.stringify(events);
    expect(stored).not.toContain("ann@example.com");
    expect(stored).not.toContain("hunter2-secret");
    expect(observed).toHaveLength(events.length);
    for (const event of observed) {
      expect(event).not.toContain("ann@example.com");
      expect(event).not.toContain("hunter2-secret");
    }
    const artifact = await new ArtifactStore(env.redis, env.keys).get(outcome.observation.truncated?.artifactId as string);
    expect(artifact?.content).toContain("password [REDACTED:secret]");
  });

  it("redacts the call's events itself when the trace it is given does not redact, or redacts with another redactor", async () => {
    const redactor = new Redactor({ secrets: ["hunter2-secret"] });
    const traces = {
      run_plain: new TraceLog(env.redis, env.keys),
      run_other: new TraceLog(env.redis, env.keys, { redact: new Redactor().redactJson }),
    };
    for (const [runId, trace] of Object.entries(traces)) {
      await lookupThrough(trace, redactor, runId);
      const stored = JSON.stringify(await trace.read(runId));
      expect(stored).toContain("[REDACTED:pii]");
      expect(stored).not.toContain("ann@example.com");
      expect(stored).not.toContain("hunter2-secret");
    }
  });
});
