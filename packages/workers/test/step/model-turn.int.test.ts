import { describe, expect, it } from "vitest";
import { ReinError } from "@rein/contracts";
import type { ModelProvider } from "@rein/models";
import { takeModelTurn } from "../../src/step/model-turn.ts";
import { openStep } from "../../src/step/step-context.ts";
import { echoScript, packetOf, stepFixturePerTest } from "../support/step-fixture.ts";

const fixture = stepFixturePerTest();

const failing = (error: Error): ModelProvider => ({
  kind: "scripted",
  name: "failing",
  model: "none",
  complete: async () => Promise.reject(error),
});

describe("the model-turn stage", () => {
  it("counts the turn and its usage, appends the reply, and traces the call", async () => {
    const runId = "run_turn";
    const step = await openStep(packetOf(runId, "Echo"), await fixture.deps(echoScript("Echo", 1), runId));
    const turn = await takeModelTurn(step, new AbortController().signal);
    expect(turn.kind).toBe("responded");
    expect(step.loop.turns).toBe(1);
    expect(step.loop.messages.at(-1)?.role).toBe("assistant");
    expect(step.loop.usage.inputTokens).toBeGreaterThan(0);
    const buffered = step.trace.take();
    expect(buffered.events.map((event) => JSON.parse(event).kind)).toEqual(["model.called", "model.responded"]);
  });

  it("returns a failure the step ends on, and throws one a later worker may retry", async () => {
    const runId = "run_model_fails";
    const deps = await fixture.deps(echoScript("Echo", 1), runId);
    const step = await openStep(packetOf(runId, "Echo"), { ...deps, provider: failing(new Error("bad request")) });
    expect(await takeModelTurn(step, new AbortController().signal)).toEqual({ kind: "failed", error: "bad request" });

    const transient = await openStep(packetOf(runId, "Echo"), {
      ...deps,
      provider: failing(new ReinError("model_error", "overloaded", { retryable: true })),
    });
    await expect(takeModelTurn(transient, new AbortController().signal)).rejects.toThrow("overloaded");
  });

  it("reserves each call within the step's budget: max_tokens shrinks to what is left, and no call is made that could not fit", async () => {
    const runId = "run_turn_reserved";
    const sent: (number | undefined)[] = [];
    const deps = await fixture.deps(echoScript("Echo", 1), runId);
    const recording: ModelProvider = {
      ...deps.provider,
      kind: "scripted",
      name: "recording",
      model: "scripted-1",
      complete: (request, options) => {
        sent.push(request.maxTokens);
        return deps.provider.complete(request, options);
      },
    };
    const roomy = await openStep(packetOf(runId, "Echo", { maxTokens: 3_000 }), { ...deps, provider: recording, maxTokensPerCall: 64_000 });
    expect((await takeModelTurn(roomy, new AbortController().signal)).kind).toBe("responded");
    expect(sent[0]).toBeLessThan(3_000);
    expect(sent[0]).toBeGreaterThanOrEqual(1_024);

    const tight = await openStep(packetOf(runId, "Echo", { maxTokens: 900 }), { ...deps, provider: recording });
    const stopped = await takeModelTurn(tight, new AbortController().signal);
    expect(stopped.kind).toBe("over_budget");
    expect(sent).toHaveLength(1);
    expect(tight.loop.turns).toBe(0);
  });

  it("reserves a call's worst-case cost too: a step with less money left than its prompt and answer would cost makes no call", async () => {
    const runId = "run_turn_cost";
    const deps = await fixture.deps(echoScript("Echo", 1), runId);
    const price = { inputPerMTok: 10, outputPerMTok: 50, cacheReadPerMTok: 1, cacheWritePerMTok: 12.5 };
    const broke = await openStep(packetOf(runId, "Echo", { maxCostUsd: 0.01 }), { ...deps, price });
    const turn = await takeModelTurn(broke, new AbortController().signal);
    expect(turn).toMatchObject({ kind: "over_budget" });
    expect(turn.kind === "over_budget" ? turn.reason : "").toMatch(/\$0\.0100 left/);
  });

  it("makes no model call once the job's lock is known lost", async () => {
    const runId = "run_turn_no_lock";
    const step = await openStep(packetOf(runId, "Echo"), await fixture.deps(echoScript("Echo", 1), runId, { lockHeld: () => false }));
    await expect(takeModelTurn(step, new AbortController().signal)).rejects.toSatisfy((error: unknown) =>
      ReinError.hasCode(error, "lock_lost"),
    );
    expect(step.loop.turns).toBe(0);
  });
});
