import { describe, expect, it } from "vitest";
import { ReinError } from "@rein/contracts";
import { saveTurn, writeTrace } from "../../src/step/save-turn.ts";
import { openStep } from "../../src/step/step-context.ts";
import { commandsSent } from "@rein/runtime/testing";
import { echoScript, packetOf, stepFixturePerTest } from "../support/step-fixture.ts";

const RESTORED = { turns: 0, calls: 0, pending: 0, resume: null };

const fixture = stepFixturePerTest();

describe("the checkpoint stage", () => {
  it("writes a turn's trace events and checkpoint in one command", async () => {
    const runId = "run_one_write";
    const step = await openStep(packetOf(runId, "Echo"), await fixture.deps(echoScript("Echo", 1), runId));
    await step.trace.append({ runId, stepId: "step_1", kind: "step.checkpoint_restored", payload: RESTORED });
    step.loop.turns = 1;
    const sent = await commandsSent(fixture.runtime.redis, () => saveTurn(step));
    expect(sent).toHaveLength(1);
    expect((await fixture.runtime.trace.read(runId)).map((event) => event.kind)).toEqual(["step.checkpoint_restored"]);
    expect((await step.deps.checkpoints.load(runId, "step_1", 1))?.turns).toBe(1);
  });

  it("sets the checkpoint's TTL on the step's first write, not again on every turn", async () => {
    const runId = "run_ttl";
    const step = await openStep(packetOf(runId, "Echo"), await fixture.deps(echoScript("Echo", 1), runId));
    await saveTurn(step);
    const key = fixture.runtime.keys.checkpoint(runId, "step_1");
    expect(await fixture.runtime.redis.ttl(key)).toBeGreaterThan(0);
    // Shortened by hand: a later turn's write leaves it as it is.
    await fixture.runtime.redis.expire(key, 1000);
    step.loop.messages.push({ role: "user", content: [{ type: "text", text: "more" }] });
    await saveTurn(step);
    expect(await fixture.runtime.redis.ttl(key)).toBeLessThanOrEqual(1000);
    expect(await fixture.runtime.redis.ttl(`${key}:messages`)).toBeGreaterThan(1000);
    expect((await step.deps.checkpoints.load(runId, "step_1", 1))?.messages).toHaveLength(2);
  });

  it("writes nothing, trace or checkpoint, once another worker has claimed the step", async () => {
    const runId = "run_taken";
    const step = await openStep(packetOf(runId, "Echo"), await fixture.deps(echoScript("Echo", 1), runId, { ownerToken: "mine" }));
    await step.deps.checkpoints.claim(runId, "step_1", "someone-else");
    await step.trace.append({ runId, stepId: "step_1", kind: "step.checkpoint_restored", payload: RESTORED });
    const lost = await saveTurn(step).catch((error: unknown) => error);
    expect(ReinError.hasCode(lost, "lock_lost")).toBe(true);
    expect(await writeTrace(step).catch((error: unknown) => error)).toSatisfy((error: unknown) => ReinError.hasCode(error, "lock_lost"));
    expect(await fixture.runtime.trace.read(runId)).toEqual([]);
    expect(await step.deps.checkpoints.load(runId, "step_1", 1)).toBeNull();
  });
});
