import { describe, expect, it } from "vitest";
import { ReinError } from "@rein/contracts";
import type { ModelToolCall } from "@rein/tools";
import { answerCalls } from "../../src/step/answer-calls.ts";
import { openStep } from "../../src/step/step-context.ts";
import { echoScript, packetOf, stepFixturePerTest } from "../support/step-fixture.ts";

const fixture = stepFixturePerTest();

const call = (id: string, name: string, input: Record<string, unknown>): ModelToolCall => ({ type: "tool_call", id, name, input });

describe("the answer-calls stage", () => {
  it("runs each call through the executor and hands the observations back as one user message", async () => {
    const runId = "run_answers";
    const step = await openStep(packetOf(runId, "Echo"), await fixture.deps(echoScript("Echo", 1), runId));
    const suspension = await answerCalls(
      step,
      [call("c1", "echo", { i: 1 }), call("c2", "echo", { i: 2 })],
      [],
      new AbortController().signal,
    );
    expect(suspension).toBeUndefined();
    expect(step.loop.records.map((record) => record.status)).toEqual(["ok", "ok"]);
    const message = step.loop.messages.at(-1);
    expect(message?.role).toBe("user");
    expect(JSON.stringify(message?.content)).toContain("echo 2");
    expect(step.loop.pending).toBeUndefined();
  });

  it("suspends on a request for context, keeping that call and those after it pending", async () => {
    const runId = "run_context";
    const step = await openStep(packetOf(runId, "Echo"), await fixture.deps(echoScript("Echo", 1), runId));
    const calls = [call("c1", "echo", { i: 1 }), call("c2", "request_context", { question: "which host?" }), call("c3", "echo", { i: 3 })];
    const suspension = await answerCalls(step, calls, [], new AbortController().signal);
    expect(suspension).toEqual({ kind: "context", question: "which host?", callIndex: 1 });
    expect(step.loop.pending?.calls.map((block) => (block as ModelToolCall).id)).toEqual(["c2", "c3"]);
    expect(step.loop.pending?.answered).toHaveLength(1);
  });

  it("answers a malformed runtime call with an observation instead of suspending", async () => {
    const runId = "run_invalid";
    const step = await openStep(packetOf(runId, "Echo"), await fixture.deps(echoScript("Echo", 1), runId));
    const suspension = await answerCalls(step, [call("c1", "request_context", { nope: true })], [], new AbortController().signal);
    expect(suspension).toBeUndefined();
    expect(step.loop.records[0]?.status).toBe("invalid_input");
  });

  it("starts no tool call once the job's lock is known lost", async () => {
    const runId = "run_no_lock";
    const step = await openStep(packetOf(runId, "Echo"), await fixture.deps(echoScript("Echo", 1), runId, { lockHeld: () => false }));
    const stopped = await answerCalls(step, [call("c1", "echo", { i: 1 })], [], new AbortController().signal).catch(
      (error: unknown) => error,
    );
    expect(ReinError.hasCode(stopped, "lock_lost")).toBe(true);
    expect(step.loop.records).toEqual([]);
  });
});
