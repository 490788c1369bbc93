import { execFileSync } from "node:child_process";
import type { TraceEvent } from "@rein/contracts/run";
import type { ModelScriptInput } from "@rein/models";
import { oneStepPlanner } from "@rein/models/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./support/harness.ts";
import { MISBEHAVING_PLUGIN_DIR } from "./support/core-fixtures.ts";

const GOAL = "Exercise the misbehaving plugin";
// Calls that leave the process healthy first, then the ones that break it; the last comes after the breaker opened.
const CALLS = ["bad_output", "flood_stderr", "fail", "echo", "crash", "hang", "garbage", "wrong_id"] as const;

const script: ModelScriptInput = {
  planner: oneStepPlanner(
    GOAL,
    {
      title: "Call every tool of the misbehaving plugin",
      objective: "Call each tool once and report what each did.",
      tools: [...CALLS],
      output_contract: { description: "what each call did", format: "text" },
      budget: { maxTurns: 12, maxToolCalls: 12 },
    },
    { answer: "echo answered", claims: [{ text: "echo answered the call", evidence: ["{{evidence:echo}}"] }], gaps: [] },
  ),
  worker: [
    {
      match: "Call every tool of the misbehaving plugin",
      turns: [
        ...CALLS.map((name) => ({ toolCalls: [{ name, input: name === "echo" || name === "fail" ? { text: "x" } : {} }] })),
        {
          text: `echo answered. ${CALLS.filter((name) => name !== "echo")
            .map((name) => `${name} failed as expected, because this plugin misbehaves on purpose.`)
            .join(" ")}`,
        },
      ],
    },
  ],
};

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness(script, [], { config: { plugins: [{ path: MISBEHAVING_PLUGIN_DIR }] }, log: { logLevel: "silent" } });
});
afterAll(async () => {
  await harness?.close();
});

describe("a run whose plugin misbehaves in every way", { timeout: 120_000 }, () => {
  it("ends each call with an observation that says what went wrong, opens the breaker, and goes on to its end", async () => {
    const runId = await harness.submit({ text: GOAL, tools: CALLS.map((name) => ({ name })) });
    const state = await harness.waitFor(runId);
    const events: TraceEvent[] = await harness.runtime.trace.read(runId);
    const executed = (tool: string) => events.find((event) => event.kind === "tool.executed" && event.payload.tool === tool)?.payload;
    expect(executed("echo")).toMatchObject({ status: "ok", plugin: "misbehaving", sandbox: "bubblewrap" });
    expect(executed("flood_stderr")).toMatchObject({ status: "ok" });
    expect(executed("bad_output")).toMatchObject({ status: "invalid_output" });
    expect(executed("fail")?.error).toContain("reported not_found");
    expect(executed("crash")?.error).toContain("ended before answering (exit code 3");
    expect(executed("hang")?.error).toContain("did not answer within its deadline");
    expect(executed("garbage")?.error).toContain("broke the wire protocol");
    expect(executed("wrong_id")?.error).toContain("circuit breaker is open");
    const breaker = events
      .filter((event) => event.kind === "plugin.breaker_changed")
      .map((event) => `${event.payload.from}->${event.payload.to}`);
    expect(breaker).toEqual(["closed->open"]);
    expect(events.filter((event) => event.kind === "observation.made")).toHaveLength(CALLS.length);
    expect(state.status).toBe("done");
    await harness.tooling.close();
    expect(execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })).not.toContain("fixtures/misbehaving");
  });
});
