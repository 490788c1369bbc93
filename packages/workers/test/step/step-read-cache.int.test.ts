import { describe, expect, it } from "vitest";
import type { ModelScriptInput } from "@rein/models";
import { defineTool, z } from "@rein/tools";
import { echoTool } from "@rein/tools/testing";
import { runStepLoop } from "../../src/step-loop.ts";
import { commandsSent } from "@rein/runtime/testing";
import { echoScript, packetOf, stepFixturePerTest } from "../support/step-fixture.ts";

const fixture = stepFixturePerTest();

let bumps = 0;
/** A write: it makes every cached read of its run stale. */
const bumpTool = defineTool({
  name: "bump",
  description: "Changes the workspace.",
  effect: "write",
  idempotent: true,
  input: z.object({}),
  // A workspace path: writes confined to the workspace run without a person.
  scope: () => ({ paths: ["bumped.txt"] }),
  run: async () => {
    bumps += 1;
    return `bumped ${bumps}`;
  },
});

/** Step-loop deps whose executor has the run's read cache, as a deployment's step worker does. */
const cachedDeps = (script: ModelScriptInput, runId: string) =>
  fixture.deps(script, runId, { executor: fixture.executor([echoTool, bumpTool], { readCache: true }) });

const withBump = (runId: string, title: string) => {
  const packet = packetOf(runId, title);
  const surface = [...packet.body.surface, { name: bumpTool.name, scope: {} }];
  return { ...packet, body: { ...packet.body, surface, bounds: { ...packet.body.bounds, surface } } };
};

const cachedFingerprints = async (runId: string) => (await fixture.runtime.redis.hkeys(fixture.runtime.keys.toolCache(runId))).length;

describe("a step's read cache", () => {
  it("costs a turn no Redis command beyond the turn's one write: entries land with it", async () => {
    const runId = "run_cache_one_write";
    const calls = 5;
    // A step before it loads the turn's script into Redis, which a first EVALSHA would otherwise fall back from.
    await runStepLoop(
      packetOf("run_cache_warm", "Echo"),
      await cachedDeps(echoScript("Echo", 1), "run_cache_warm"),
      new AbortController().signal,
    );
    const deps = await cachedDeps(echoScript("Echo", calls), runId);
    const sent = (
      await commandsSent(fixture.runtime.redis, () => runStepLoop(packetOf(runId, "Echo"), deps, new AbortController().signal))
    ).map((command) => command.name);
    // Opening the step (claim, checkpoint, what the run's cache holds) and then one script per turn, plus the step's last trace write.
    const afterOpen = sent.slice(sent.indexOf("get") + 1).filter((name) => name !== "hkeys");
    expect(afterOpen).toEqual(Array.from({ length: calls + 1 }, () => "evalsha"));
    expect(await cachedFingerprints(runId)).toBe(calls);
    expect(await fixture.runtime.redis.ttl(fixture.runtime.keys.toolCache(runId))).toBeGreaterThan(0);
  });

  it("serves a read repeated within the step from what the step already holds, and a later step's from Redis", async () => {
    const runId = "run_cache_repeat";
    const repeat: ModelScriptInput = {
      worker: [
        {
          match: "Repeat",
          turns: [
            { toolCalls: [{ name: echoTool.name, input: { i: 7 } }] },
            { toolCalls: [{ name: echoTool.name, input: { i: 7 } }] },
            { text: "Echoed twice." },
          ],
        },
      ],
    };
    const first = await runStepLoop(packetOf(runId, "Repeat"), await cachedDeps(repeat, runId), new AbortController().signal);
    expect(first.observations.map((observation) => observation.provenance.cacheHit)).toEqual([false, true]);
    const events = await fixture.runtime.trace.read(runId);
    expect(events.filter((event) => event.kind === "tool.cache_hit")).toHaveLength(1);

    const secondPacket = packetOf(runId, "Repeat");
    const second = await runStepLoop(
      { ...secondPacket, body: { ...secondPacket.body, stepId: "step_2" } },
      await cachedDeps(repeat, runId),
      new AbortController().signal,
    );
    expect(second.observations.map((observation) => observation.provenance.cacheHit)).toEqual([true, true]);
  });

  it("drops a read cached earlier in the same turn when a write of that turn makes it stale", async () => {
    const runId = "run_cache_stale";
    const script: ModelScriptInput = {
      worker: [
        {
          match: "Read then write",
          turns: [
            {
              toolCalls: [
                { name: echoTool.name, input: { i: 1 } },
                { name: bumpTool.name, input: {} },
              ],
            },
            { toolCalls: [{ name: echoTool.name, input: { i: 1 } }] },
            { text: "Done." },
          ],
        },
      ],
    };
    const result = await runStepLoop(withBump(runId, "Read then write"), await cachedDeps(script, runId), new AbortController().signal);
    expect(result.observations.map((observation) => [observation.provenance.tool, observation.status])).toEqual([
      ["echo", "ok"],
      ["bump", "ok"],
      ["echo", "ok"],
    ]);
    // The write came after the first read: the second read runs the tool again instead of serving the stale result.
    expect(
      result.observations
        .filter((observation) => observation.provenance.tool === echoTool.name)
        .map((observation) => observation.provenance.cacheHit),
    ).toEqual([false, false]);
    // Only the read after the write is kept.
    expect(await cachedFingerprints(runId)).toBe(1);
  });

  it("lands no entry once another worker has claimed the step", async () => {
    const runId = "run_cache_taken";
    const deps = { ...(await cachedDeps(echoScript("Echo", 2), runId)), ownerToken: "mine" };
    await deps.checkpoints.claim(runId, "step_1", "mine");
    const loop = runStepLoop(packetOf(runId, "Echo"), deps, new AbortController().signal);
    // Taken over before the first turn's write: the claim inside openStep is this worker's, so take it after.
    await fixture.runtime.redis.set(fixture.runtime.keys.stepOwner(runId, "step_1"), "someone-else");
    await expect(loop).rejects.toSatisfy((error: unknown) => (error as { code?: string }).code === "lock_lost");
    expect(await cachedFingerprints(runId)).toBe(0);
  });
});
