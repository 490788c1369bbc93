import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type HandoffPacket, PacketBody, PolicyRule, ReinError } from "@rein/contracts";
import type { ModelScriptInput } from "@rein/models";
import { IdempotencyStore } from "@rein/runtime";
import { defineTool } from "@rein/tools";
import { runStepLoop, type StepLoopDeps } from "../../src/step-loop.ts";
import { packetOf, stepFixturePerTest } from "../support/step-fixture.ts";

const fixture = stepFixturePerTest();

const TITLE = "Send one note";
const script: ModelScriptInput = {
  worker: [{ match: TITLE, turns: [{ toolCalls: [{ name: "send_note", input: { text: "hello" } }] }, { text: "Sent." }] }],
};

/** A non-idempotent effect that counts how often it happened; `during` runs while it is under way. */
function noteSender(during: () => Promise<void> = async () => undefined) {
  const sent: string[] = [];
  const tool = defineTool({
    name: "send_note",
    description: "Sends a note (not idempotent).",
    effect: "external",
    input: z.object({ text: z.string() }),
    run: async ({ text }) => {
      sent.push(text);
      await during();
      return `sent ${text}`;
    },
  });
  return { tool, sent };
}

/** Loop deps whose executor records intents and outcomes, for a step owned by `ownerToken`. */
async function depsWith(tool: ReturnType<typeof noteSender>["tool"], runId: string, ownerToken: string): Promise<StepLoopDeps> {
  const executor = fixture.executor([tool], {
    policy: [PolicyRule.parse({ id: "allow-notes", tool: "send_note", decision: "allow" })],
    recordEffects: true,
  });
  return fixture.deps(script, runId, { executor, ownerToken });
}

function notePacket(runId: string): HandoffPacket {
  const packet = packetOf(runId, TITLE);
  const surface = [{ name: "send_note", scope: {} }];
  return { ...packet, body: PacketBody.parse({ ...packet.body, surface, bounds: { ...packet.body.bounds, surface } }) };
}

const KEY = (runId: string) => `${runId}:step_1:1:0`;

describe("a worker cut off from its step and the effects it records", () => {
  it("starts no effect once another worker has claimed its step, though it still believes its lock held", async () => {
    const runId = "run_fenced_intent";
    const { tool, sent } = noteSender();
    const deps = await depsWith(tool, runId, "worker-a");
    // While its model call is under way the worker is cut off: the job is taken over and the step claimed.
    const provider = deps.provider;
    const cutOff: StepLoopDeps = {
      ...deps,
      provider: {
        ...provider,
        kind: provider.kind,
        name: provider.name,
        model: provider.model,
        complete: async (request, options) => {
          await deps.checkpoints.claim(runId, "step_1", "worker-b");
          return provider.complete(request, options);
        },
      },
    };

    const stopped = await runStepLoop(notePacket(runId), cutOff, new AbortController().signal).catch((error: unknown) => error);
    expect(ReinError.hasCode(stopped, "lock_lost")).toBe(true);
    expect(sent).toEqual([]);
    expect(await new IdempotencyStore(fixture.runtime.redis, fixture.runtime.keys).get(KEY(runId))).toBeUndefined();
  });

  it("records no outcome once its step was taken over mid-effect: the new owner is told the outcome is unknown, and the effect happened once", async () => {
    const runId = "run_fenced_outcome";
    // While the effect is under way the worker is cut off: the job is taken over and the step claimed.
    const { tool, sent } = noteSender(async () => {
      if (sent.length === 1) await fixture.runtime.checkpoints.claim(runId, "step_1", "worker-b");
    });
    const first = await runStepLoop(notePacket(runId), await depsWith(tool, runId, "worker-a"), new AbortController().signal).catch(
      (error: unknown) => error,
    );
    expect(ReinError.hasCode(first, "lock_lost")).toBe(true);
    const idempotency = new IdempotencyStore(fixture.runtime.redis, fixture.runtime.keys);
    expect(await idempotency.get(KEY(runId))).toMatchObject({ kind: "intent", tool: "send_note" });

    const resumed = await runStepLoop(notePacket(runId), await depsWith(tool, runId, "worker-b"), new AbortController().signal);
    expect(sent).toEqual(["hello"]);
    expect(resumed.status).toBe("failed");
    expect(resumed.toolCalls.map((call) => call.status)).toEqual(["outcome_unknown"]);
  });
});
