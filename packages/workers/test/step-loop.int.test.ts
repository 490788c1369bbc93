import { describe, expect, it } from "vitest";
import {
  assemblePrompt,
  canonicalJson,
  expandPromptCopy,
  type ModelProvider,
  type ModelRequest,
  PromptCopy,
  ReinError,
  type TraceEvent,
} from "@rein/core";
import { runStepLoop } from "../src/step-loop.ts";
import { echoScript, packetOf, stepFixturePerTest } from "./support/step-fixture.ts";

const fixture = stepFixturePerTest();

/** Passes calls through and keeps each request, and can act before answering call n. */
function watched(provider: ModelProvider, before?: (call: number) => Promise<void>): ModelProvider & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    kind: provider.kind,
    name: provider.name,
    model: provider.model,
    requests,
    complete: async (request, options) => {
      requests.push(request);
      await before?.(requests.length);
      return provider.complete(request, options);
    },
  };
}

const bytesOf = (event: TraceEvent) => Buffer.byteLength(JSON.stringify(event));

describe("the step loop's trace", () => {
  it("grows by the same bytes per turn at turn 200 as at turn 20, and every prompt is still reconstructible", async () => {
    const runId = "run_linear";
    const title = "Echo 200 times";
    const deps = await fixture.deps(echoScript(title, 200), runId);
    const provider = watched(deps.provider);
    const result = await runStepLoop(packetOf(runId, title), { ...deps, provider }, new AbortController().signal);
    expect(result.status).toBe("completed");

    const events = await fixture.runtime.trace.read(runId);
    const blobs = await fixture.runtime.trace.readBlobs(runId);
    const calls = events.filter((event) => event.kind === "model.called");
    expect(calls).toHaveLength(201);
    // A turn's events: from its model call up to the next one.
    const turnBytes = (turn: number) => {
      const from = (calls[turn - 1] as TraceEvent).seq;
      const to = (calls[turn] as TraceEvent).seq;
      return events.filter((event) => event.seq >= from && event.seq < to).reduce((sum, event) => sum + bytesOf(event), 0);
    };
    // Structural, not timing: only ids and counters (a few digits) may differ between the two turns.
    expect(Math.abs(turnBytes(200) - turnBytes(20))).toBeLessThan(0.05 * turnBytes(20));
    expect(bytesOf(calls[199] as TraceEvent)).toBeLessThan(bytesOf(calls[19] as TraceEvent) + 100);

    // Every call's whole prompt comes back from the chain, exactly as the model was sent it.
    const earlier = new Map<string, readonly string[]>();
    for (const [index, call] of calls.entries()) {
      const whole = expandPromptCopy(PromptCopy.parse(call.payload.prompt), earlier);
      expect(whole, `call ${index + 1} expands`).toBeDefined();
      earlier.set(call.inputHash as string, (whole as PromptCopy).messages);
      const prompt = assemblePrompt(whole as PromptCopy, blobs);
      expect(canonicalJson(prompt?.messages)).toBe(canonicalJson((provider.requests[index] as ModelRequest).messages));
    }
  });
});

describe("a worker that loses its job", () => {
  it("stops at the turn boundary where it finds the step taken over, writing nothing of that turn", async () => {
    const runId = "run_lock_taken";
    const title = "Echo 5 times";
    const deps = await fixture.deps(echoScript(title, 5), runId, { ownerToken: "worker-a" });
    // During turn 3's model call another worker takes the job over and claims the step.
    const provider = watched(deps.provider, async (call) => {
      if (call === 3) await deps.checkpoints.claim(runId, "step_1", "worker-b");
    });

    const stopped = await runStepLoop(packetOf(runId, title), { ...deps, provider }, new AbortController().signal).catch((error: unknown) => error);
    expect(ReinError.hasCode(stopped, "lock_lost")).toBe(true);

    const events = await fixture.runtime.trace.read(runId);
    expect(events.filter((event) => event.kind === "model.called")).toHaveLength(2);
    expect(events.filter((event) => event.kind === "tool.executed")).toHaveLength(2);
    const checkpoint = await deps.checkpoints.load(runId, "step_1", 1);
    expect(checkpoint?.turns).toBe(2);
    expect(checkpoint?.records).toHaveLength(2);
  });

  it("calls neither the model nor a tool once it knows the lock could not be renewed", async () => {
    const runId = "run_lock_lapsed";
    const title = "Echo 5 times";
    let held = true;
    const deps = await fixture.deps(echoScript(title, 5), runId, { lockHeld: () => held });
    const provider = watched(deps.provider, async (call) => {
      if (call === 2) held = false;
    });

    const stopped = await runStepLoop(packetOf(runId, title), { ...deps, provider }, new AbortController().signal).catch((error: unknown) => error);
    expect(ReinError.hasCode(stopped, "lock_lost")).toBe(true);
    // Turn 2's model call was under way when renewal failed: its tool call is never started, and no turn 3 begins.
    expect(provider.requests).toHaveLength(2);
    const events = await fixture.runtime.trace.read(runId);
    expect(events.filter((event) => event.kind === "tool.called")).toHaveLength(1);
    expect((await deps.checkpoints.load(runId, "step_1", 1))?.turns).toBe(1);
  });

  it("stops writing once its run has ended, even with the step still its own", async () => {
    const runId = "run_ended_mid_step";
    const title = "Echo 5 times";
    const deps = await fixture.deps(echoScript(title, 5), runId, { ownerToken: "worker-a" });
    // During turn 3's model call the run ends (cancelled, or finished by a result another worker sent).
    const provider = watched(deps.provider, async (call) => {
      if (call === 3) await fixture.runtime.redis.hset(fixture.runtime.keys.run(runId), "status", "cancelled");
    });

    const stopped = await runStepLoop(packetOf(runId, title), { ...deps, provider }, new AbortController().signal).catch((error: unknown) => error);
    expect(ReinError.hasCode(stopped, "run_ended")).toBe(true);
    const events = await fixture.runtime.trace.read(runId);
    expect(events.filter((event) => event.kind === "model.called")).toHaveLength(2);
    expect((await deps.checkpoints.load(runId, "step_1", 1))?.turns).toBe(2);
  });

  it("writes nothing of its cut-off turn, nor that it was cancelled, when its run ended after another worker took the step", async () => {
    const runId = "run_ended_after_takeover";
    const title = "Echo 5 times";
    const deps = await fixture.deps(echoScript(title, 5), runId, { ownerToken: "worker-a" });
    const watch = new AbortController();
    // Turn 3's model call is under way when this worker is cut off from Redis: another worker claims the
    // step and the run escalates; when the connection is back the run-end watch reports the ended run.
    const provider = watched(deps.provider, async (call) => {
      if (call !== 3) return;
      await deps.checkpoints.claim(runId, "step_1", "worker-b");
      await fixture.runtime.redis.hset(fixture.runtime.keys.run(runId), "status", "escalated");
      watch.abort(new ReinError("run_ended", `run ${runId} ended (escalated) while its step ran`, { details: { status: "escalated" } }));
    });

    const stopped = await runStepLoop(packetOf(runId, title), { ...deps, provider }, watch.signal).catch((error: unknown) => error);
    expect(ReinError.hasCode(stopped, "run_ended")).toBe(true);
    const kinds = (await fixture.runtime.trace.read(runId)).map((event) => event.kind);
    expect(kinds.filter((kind) => kind === "model.called")).toHaveLength(2);
    expect(kinds).not.toContain("step.cancelled");
  });

  it("writes nothing into its ended run once it knows its lock is gone, though no one has claimed the step yet", async () => {
    const runId = "run_ended_lock_gone";
    const title = "Echo 5 times";
    let held = true;
    const deps = await fixture.deps(echoScript(title, 5), runId, { ownerToken: "worker-a", lockHeld: () => held });
    const watch = new AbortController();
    const provider = watched(deps.provider, async (call) => {
      if (call !== 3) return;
      held = false;
      await fixture.runtime.redis.hset(fixture.runtime.keys.run(runId), "status", "escalated");
      watch.abort(new ReinError("run_ended", `run ${runId} ended (escalated) while its step ran`, { details: { status: "escalated" } }));
    });

    const stopped = await runStepLoop(packetOf(runId, title), { ...deps, provider }, watch.signal).catch((error: unknown) => error);
    expect(ReinError.hasCode(stopped, "run_ended")).toBe(true);
    const kinds = (await fixture.runtime.trace.read(runId)).map((event) => event.kind);
    expect(kinds.filter((kind) => kind === "model.called")).toHaveLength(2);
    expect(kinds).not.toContain("step.cancelled");
  });

  it("still records where it was cut off when its run ended with the step its own", async () => {
    const runId = "run_cancelled_owner";
    const title = "Echo 5 times";
    const deps = await fixture.deps(echoScript(title, 5), runId, { ownerToken: "worker-a" });
    const watch = new AbortController();
    const provider = watched(deps.provider, async (call) => {
      if (call !== 3) return;
      await fixture.runtime.redis.hset(fixture.runtime.keys.run(runId), "status", "cancelled");
      watch.abort(new ReinError("run_ended", `run ${runId} ended (cancelled) while its step ran`, { details: { status: "cancelled" } }));
    });

    const stopped = await runStepLoop(packetOf(runId, title), { ...deps, provider }, watch.signal).catch((error: unknown) => error);
    expect(ReinError.hasCode(stopped, "run_ended")).toBe(true);
    const events = await fixture.runtime.trace.read(runId);
    expect(events.filter((event) => event.kind === "model.called")).toHaveLength(3);
    expect(events.find((event) => event.kind === "step.cancelled")?.payload).toMatchObject({ runStatus: "cancelled", cutOff: "model_call", turns: 3 });
  });
});
