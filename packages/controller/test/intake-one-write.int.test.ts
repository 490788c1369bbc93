import { afterEach, describe, expect, it } from "vitest";
import { generatePacketKeys } from "@rein/signing";
import { jobIds, QUEUE_NAMES } from "@rein/runtime";
import { commandsSent, createTestRuntime, type TestRuntime } from "@rein/runtime/testing";
import { intakeEvents } from "../src/intake/intake-events.ts";
import { submitGoal } from "../src/intake/submit-goal.ts";

// Issue 32: a run taken in where the packet key is held is written once, with goal.submitted already applied.
describe("taking a goal in where the packet key is held", () => {
  let runtime: TestRuntime;
  afterEach(async () => {
    await runtime?.cleanup();
  });

  it("writes the run once, already planning its first plan, and reads nothing back", async () => {
    runtime = await createTestRuntime();
    const events = intakeEvents(runtime, generatePacketKeys().privateKey);
    // Connected first: a command sent while connecting is passed to sendCommand again once connected.
    await runtime.redis.ping();
    let runId = "";
    const sent = await commandsSent(runtime.redis, async () => {
      runId = (await submitGoal(runtime, { text: "Say hello" }, { knownTools: [], events })).runId;
    });

    const listed = sent.map((command) => `${command.name} ${command.args[0] ?? ""}`).join(", ");
    const named = (name: string) => sent.filter((command) => command.name === name);
    expect([...named("evalsha"), ...named("eval")], listed).toHaveLength(1);
    expect(named("hget")).toEqual([]);
    // Indexed among the active runs once, as it is created: the write that applied the event is in the same second.
    expect(
      named("zadd").filter((command) => command.args[0] === runtime.keys.activeRuns()),
      listed,
    ).toHaveLength(1);
    const state = await runtime.runs.require(runId);
    expect(state).toMatchObject({ version: 1, status: "planning", planCount: 1, appliedEvents: [`submitted-${runId}`] });
    const kinds = (await runtime.trace.read(runId)).map((event) => event.kind);
    expect(kinds[0]).toBe("run.submitted");
    expect(kinds).toContain("plan.requested");
    expect(await runtime.queues.ofRun(QUEUE_NAMES.plan, runId).getJob(jobIds.plan(runId, 1))).toBeDefined();
  });
});
