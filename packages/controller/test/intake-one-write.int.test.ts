import { afterEach, describe, expect, it, vi } from "vitest";
import { generatePacketKeys } from "@rein/signing";
import { jobIds, QUEUE_NAMES } from "@rein/runtime";
import { createTestRuntime, type TestRuntime } from "@rein/runtime/testing";
import { intakeEvents } from "../src/intake/intake-events.ts";
import { submitGoal } from "../src/intake/submit-goal.ts";

/** The commands `runtime.redis` sends while `work` runs: each one's name and first key. */
async function commandsSent(runtime: TestRuntime, work: () => Promise<unknown>): Promise<string[]> {
  const sent: string[] = [];
  const send = runtime.redis.sendCommand.bind(runtime.redis);
  const spy = vi
    .spyOn(runtime.redis, "sendCommand")
    .mockImplementation((command: Parameters<typeof send>[0], stream?: Parameters<typeof send>[1]) => {
      sent.push(`${command.name.toLowerCase()} ${String(command.args[0] ?? "")}`);
      return send(command, stream);
    });
  try {
    await work();
  } finally {
    spy.mockRestore();
  }
  return sent;
}

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
    const sent = await commandsSent(runtime, async () => {
      runId = (await submitGoal(runtime, { text: "Say hello" }, { knownTools: [], events })).runId;
    });

    const named = (name: string) => sent.filter((command) => command.startsWith(`${name} `));
    expect([...named("evalsha"), ...named("eval")], sent.join(", ")).toHaveLength(1);
    expect(named("hget")).toEqual([]);
    // Indexed among the active runs once, as it is created: the write that applied the event is in the same second.
    expect(
      named("zadd").filter((command) => command.includes(runtime.keys.activeRuns())),
      sent.join(", "),
    ).toHaveLength(1);
    const state = await runtime.runs.require(runId);
    expect(state).toMatchObject({ version: 1, status: "planning", planCount: 1, appliedEvents: [`submitted-${runId}`] });
    const kinds = (await runtime.trace.read(runId)).map((event) => event.kind);
    expect(kinds[0]).toBe("run.submitted");
    expect(kinds).toContain("plan.requested");
    expect(await runtime.queues.ofRun(QUEUE_NAMES.plan, runId).getJob(jobIds.plan(runId, 1))).toBeDefined();
  });
});
