import { describe, expect, it } from "vitest";
import { canonicalJson, ReinError } from "@rein/contracts";
import type { TraceEvent } from "@rein/contracts/run";
import type { ModelProvider, ModelRequest } from "@rein/models";
import { assemblePrompt, expandPromptCopy, PromptCopy } from "@rein/trace";
import { runStepLoop, type StepLoopDeps } from "../src/step-loop.ts";
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

const FIVE_ECHOES = "Echo 5 times";

/**
 * Runs a step of five echo turns owned by `worker-a`; while model call
 * `call` is under way, `cutOff` happens to the worker. Returns what the loop
 * stopped with and what it wrote.
 */
async function cutOffInCall(
  runId: string,
  call: number,
  cutOff: (deps: StepLoopDeps) => unknown,
  options: { extra?: Partial<StepLoopDeps>; signal?: AbortSignal } = {},
) {
  const deps = await fixture.deps(echoScript(FIVE_ECHOES, 5), runId, { ownerToken: "worker-a", ...options.extra });
  const provider = watched(deps.provider, async (n) => {
    if (n === call) await cutOff(deps);
  });
  const stopped = await runStepLoop(
    packetOf(runId, FIVE_ECHOES),
    { ...deps, provider },
    options.signal ?? new AbortController().signal,
  ).catch((error: unknown) => error);
  return { stopped, events: await fixture.runtime.trace.read(runId), deps, provider };
}

/** Ends the run as the controller would (`status` in its hash) and as the run-end watch then says (`watch` aborts with `run_ended`). */
async function endRun(runId: string, status: "escalated" | "cancelled", watch: AbortController): Promise<void> {
  await fixture.runtime.redis.hset(fixture.runtime.keys.run(runId), "status", status);
  watch.abort(new ReinError("run_ended", `run ${runId} ended (${status}) while its step ran`, { details: { status } }));
}

const kindsOf = (events: readonly TraceEvent[], kind: string) => events.filter((event) => event.kind === kind);

/**
 * The step's deps with its turn writes held: each write is sent at once, but
 * the step hears how it went only when the hold is released (by the next
 * model call, or after `fallbackMs` so a loop that waits for it still ends).
 * Counts the tool calls the executor is asked to run.
 */
function heldWrites(deps: StepLoopDeps, options: { refuse?: boolean; fallbackMs?: number } = {}) {
  const seen = { releasedBy: [] as string[], toolCalls: 0, writes: 0 };
  const releases: (() => void)[] = [];
  const release = (by: string) => {
    for (const next of releases.splice(0)) {
      seen.releasedBy.push(by);
      next();
    }
  };
  const checkpoints = Object.create(deps.checkpoints) as StepLoopDeps["checkpoints"];
  checkpoints.saveTurn = async (turn) => {
    if (!turn.checkpoint) return deps.checkpoints.saveTurn(turn);
    seen.writes += 1;
    const held = new Promise<void>((resolve) => {
      releases.push(resolve);
      setTimeout(() => release("fallback"), options.fallbackMs ?? 2_000).unref();
    });
    // A refused write: another worker claimed the step before this one's write reached Redis.
    if (options.refuse) await deps.checkpoints.claim(turn.runId, turn.stepId, "worker-b");
    const outcome = deps.checkpoints.saveTurn(turn).then(
      (saved) => ({ saved }),
      (error: unknown) => ({ error }),
    );
    await held;
    const settled = await outcome;
    if ("error" in settled) throw settled.error;
    return settled.saved;
  };
  const executor = Object.create(deps.executor) as StepLoopDeps["executor"];
  executor.execute = (...args) => {
    seen.toolCalls += 1;
    return deps.executor.execute(...args);
  };
  const provider = watched(deps.provider, async () => release("model call"));
  return { deps: { ...deps, checkpoints, executor, provider }, seen };
}

describe("a turn's write", () => {
  it("is in flight while the next model call is made, and the step waits for it before running that turn's tools", async () => {
    const runId = "run_write_overlap";
    const base = await fixture.deps(echoScript(FIVE_ECHOES, 5), runId, { ownerToken: "worker-a" });
    const { deps, seen } = heldWrites(base);
    const result = await runStepLoop(packetOf(runId, FIVE_ECHOES), deps, new AbortController().signal);
    expect(result.status).toBe("completed");
    // Every tool turn's write was released by the model call after it, never by the fallback.
    const events = await fixture.runtime.trace.read(runId);
    const toolTurns = kindsOf(events, "tool.executed").length;
    expect(toolTurns).toBeGreaterThan(1);
    expect(seen.writes).toBe(toolTurns);
    expect(seen.releasedBy).toEqual(Array(toolTurns).fill("model call"));
    expect(seen.toolCalls).toBe(toolTurns);
    expect(kindsOf(events, "model.called")).toHaveLength(toolTurns + 1);
    expect((await base.checkpoints.load(runId, "step_1", 1))?.turns).toBe(toolTurns);
  });

  it("refused, stops the step before the next call's tools run, and nothing of that call is written", async () => {
    const runId = "run_write_refused";
    const base = await fixture.deps(echoScript(FIVE_ECHOES, 5), runId, { ownerToken: "worker-a" });
    const { deps, seen } = heldWrites(base, { refuse: true });
    const stopped = await runStepLoop(packetOf(runId, FIVE_ECHOES), deps, new AbortController().signal).catch((error: unknown) => error);
    expect(ReinError.hasCode(stopped, "lock_lost")).toBe(true);
    // Turn 1's tool ran; the model call made while its write was in flight got no tool run after the refusal.
    expect(seen.toolCalls).toBe(1);
    expect(seen.releasedBy).toEqual(["model call"]);
    const events = await fixture.runtime.trace.read(runId);
    expect(kindsOf(events, "model.called")).toEqual([]);
    expect(kindsOf(events, "tool.executed")).toEqual([]);
  });
});

describe("the run's workspace", () => {
  it("is not waited for by a step that calls no tool", async () => {
    const runId = "run_no_tool";
    const base = await fixture.deps(echoScript("Answer at once", 0), runId);
    const neverOpened = new Promise<never>(() => {});
    const outcome = await Promise.race([
      runStepLoop(packetOf(runId, "Answer at once"), { ...base, workspace: neverOpened }, new AbortController().signal),
      new Promise<"still waiting">((resolve) => setTimeout(() => resolve("still waiting"), 2_000).unref()),
    ]);
    expect(outcome).toMatchObject({ status: "completed" });
  });

  it("that fails to open fails the step at its first tool call, before the tool runs", async () => {
    const runId = "run_no_workspace";
    const base = await fixture.deps(echoScript(FIVE_ECHOES, 5), runId);
    const { deps, seen } = heldWrites(base, { fallbackMs: 0 });
    const failed = Promise.reject(new Error("EACCES: permission denied, mkdir '/srv/rein/run_no_workspace'"));
    const stopped = await runStepLoop(packetOf(runId, FIVE_ECHOES), { ...deps, workspace: failed }, new AbortController().signal).catch(
      (error: unknown) => error,
    );
    expect(String(stopped)).toMatch(/EACCES/);
    expect(seen.toolCalls).toBe(0);
  });
});

describe("a worker that loses its job", () => {
  it("stops at the turn boundary where it finds the step taken over, writing nothing of that turn", async () => {
    const runId = "run_lock_taken";
    // During turn 3's model call another worker takes the job over and claims the step.
    const { stopped, events, deps } = await cutOffInCall(runId, 3, (deps) => deps.checkpoints.claim(runId, "step_1", "worker-b"));
    expect(ReinError.hasCode(stopped, "lock_lost")).toBe(true);
    expect(kindsOf(events, "model.called")).toHaveLength(2);
    expect(kindsOf(events, "tool.executed")).toHaveLength(2);
    const checkpoint = await deps.checkpoints.load(runId, "step_1", 1);
    expect(checkpoint?.turns).toBe(2);
    expect(checkpoint?.records).toHaveLength(2);
  });

  it("calls neither the model nor a tool once it knows the lock could not be renewed", async () => {
    const runId = "run_lock_lapsed";
    let held = true;
    const { stopped, events, deps, provider } = await cutOffInCall(
      runId,
      2,
      () => {
        held = false;
      },
      { extra: { ownerToken: undefined, lockHeld: () => held } },
    );
    expect(ReinError.hasCode(stopped, "lock_lost")).toBe(true);
    // Turn 2's model call was under way when renewal failed: its tool call is never started, and no turn 3 begins.
    expect(provider.requests).toHaveLength(2);
    expect(kindsOf(events, "tool.called")).toHaveLength(1);
    expect((await deps.checkpoints.load(runId, "step_1", 1))?.turns).toBe(1);
  });

  it("stops writing once its run has ended, even with the step still its own", async () => {
    const runId = "run_ended_mid_step";
    // During turn 3's model call the run ends (cancelled, or finished by a result another worker sent).
    const { stopped, events, deps } = await cutOffInCall(runId, 3, () =>
      fixture.runtime.redis.hset(fixture.runtime.keys.run(runId), "status", "cancelled"),
    );
    expect(ReinError.hasCode(stopped, "run_ended")).toBe(true);
    expect(kindsOf(events, "model.called")).toHaveLength(2);
    expect((await deps.checkpoints.load(runId, "step_1", 1))?.turns).toBe(2);
  });

  it("writes nothing of its cut-off turn, nor that it was cancelled, when its run ended after another worker took the step", async () => {
    const runId = "run_ended_after_takeover";
    const watch = new AbortController();
    // Turn 3's model call is under way when this worker is cut off from Redis: another worker claims the
    // step and the run escalates; when the connection is back the run-end watch reports the ended run.
    const { stopped, events } = await cutOffInCall(
      runId,
      3,
      async (deps) => {
        await deps.checkpoints.claim(runId, "step_1", "worker-b");
        await endRun(runId, "escalated", watch);
      },
      { signal: watch.signal },
    );
    expect(ReinError.hasCode(stopped, "run_ended")).toBe(true);
    expect(kindsOf(events, "model.called")).toHaveLength(2);
    expect(kindsOf(events, "step.cancelled")).toEqual([]);
  });

  it("writes nothing into its ended run once it knows its lock is gone, though no one has claimed the step yet", async () => {
    const runId = "run_ended_lock_gone";
    let held = true;
    const watch = new AbortController();
    const { stopped, events } = await cutOffInCall(
      runId,
      3,
      async () => {
        held = false;
        await endRun(runId, "escalated", watch);
      },
      { extra: { lockHeld: () => held }, signal: watch.signal },
    );
    expect(ReinError.hasCode(stopped, "run_ended")).toBe(true);
    expect(kindsOf(events, "model.called")).toHaveLength(2);
    expect(kindsOf(events, "step.cancelled")).toEqual([]);
  });

  it("still records where it was cut off when its run ended with the step its own", async () => {
    const runId = "run_cancelled_owner";
    const watch = new AbortController();
    const { stopped, events } = await cutOffInCall(runId, 3, () => endRun(runId, "cancelled", watch), { signal: watch.signal });
    expect(ReinError.hasCode(stopped, "run_ended")).toBe(true);
    expect(kindsOf(events, "model.called")).toHaveLength(3);
    expect(events.find((event) => event.kind === "step.cancelled")?.payload).toMatchObject({
      runStatus: "cancelled",
      cutOff: "model_call",
      turns: 3,
    });
  });
});
