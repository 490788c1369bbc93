import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RunEndWatch } from "../../src/index.ts";
import { ReinError } from "@rein/contracts";
import { RunState, type RunStatus } from "@rein/contracts/run";
import { createTestRuntime, type TestRuntime } from "../../src/testing/index.ts";

const stored = RunState.parse(JSON.parse(readFileSync(new URL("../fixtures/run-state.v1.json", import.meta.url), "utf8")));

let runtime: TestRuntime;
let watch: RunEndWatch;
beforeEach(async () => {
  runtime = await createTestRuntime();
  watch = new RunEndWatch(runtime.redis, runtime.keys, runtime.logger);
  await watch.start();
});
afterEach(async () => {
  await watch.close();
  await runtime.cleanup();
});

async function createRun(runId: string): Promise<RunState> {
  const state = { ...stored, runId, version: 0, status: "executing" as const };
  await runtime.runs.create(state);
  return state;
}

async function moveTo(state: RunState, status: RunStatus): Promise<RunState> {
  const next = { ...state, version: state.version + 1, status };
  await runtime.runs.save(next, state.version);
  return next;
}

const aborted = (signal: AbortSignal) =>
  new Promise<unknown>((resolve) => signal.addEventListener("abort", () => resolve(signal.reason), { once: true }));

describe("a worker's watch on the runs of its steps", () => {
  it("aborts a watched step the moment the run store writes a status that stops it, and no other run's", async () => {
    const cancelled = await createRun("run_a");
    await createRun("run_b");
    const a = watch.watch("run_a");
    const b = watch.watch("run_b");
    const reason = aborted(a.signal);

    await moveTo(await moveTo(cancelled, "evaluating"), "cancelled");

    const error = await reason;
    expect(ReinError.hasCode(error, "run_ended")).toBe(true);
    expect((error as ReinError).details.status).toBe("cancelled");
    expect((error as ReinError).message).toContain("run run_a ended (cancelled)");
    expect(b.signal.aborted).toBe(false);
  });

  it("stops a step on escalation too: a person's answer dispatches what runs next", async () => {
    const state = await createRun("run_escalated");
    const step = watch.watch("run_escalated");
    const reason = aborted(step.signal);
    await moveTo(state, "escalated");
    expect(((await reason) as ReinError).details.status).toBe("escalated");
  });

  it("leaves a released step alone", async () => {
    const state = await createRun("run_released");
    const released = watch.watch("run_released");
    const watched = watch.watch("run_released");
    released.release();
    const reason = aborted(watched.signal);
    await moveTo(state, "failed");
    await reason;
    expect(released.signal.aborted).toBe(false);
  });

  it("hears of an end it missed while disconnected: after reconnecting it reads the status of each run it watches", async () => {
    await createRun("run_missed");
    const step = watch.watch("run_missed");
    const reason = aborted(step.signal);
    const clients = String(await runtime.redis.client("LIST"));
    const id = /id=(\d+) .*name=(\S+)/.exec(clients.split("\n").find((line) => line.includes(`name=${watch.connectionName} `)) ?? "")?.[1];
    expect(id).toBeDefined();
    // The subscriber is cut off and the run ends before it is back: no announcement reaches it.
    await runtime.redis.multi().client("KILL", "ID", String(id)).hset(runtime.keys.run("run_missed"), "status", "cancelled").exec();

    expect(((await reason) as ReinError).details.status).toBe("cancelled");
  });
});
