import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type HandoffPacket, PacketBody, PolicyRule, ReinError } from "@rein/contracts";
import type { ModelScriptInput } from "@rein/models";
import { defineTool } from "@rein/tools";
import { runStepLoop, type StepLoopDeps } from "../../src/step-loop.ts";
import { packetOf, stepFixturePerTest } from "../support/step-fixture.ts";

const fixture = stepFixturePerTest();

const TITLE = "Wait for the build";
const script: ModelScriptInput = {
  worker: [{ match: TITLE, turns: [{ toolCalls: [{ name: "wait_build", input: { build: "42" } }] }, { text: "The build is green." }] }],
};

/** A non-idempotent tool (by its own declaration) that only waits: the first run is cut off mid-call by its step being taken over. */
function buildWaiter(runId: string) {
  const runs: string[] = [];
  const tool = defineTool({
    name: "wait_build",
    description: "Waits for a build to finish (declared not idempotent).",
    effect: "external",
    input: z.object({ build: z.string() }),
    run: async ({ build }) => {
      runs.push(build);
      if (runs.length === 1) await fixture.runtime.checkpoints.claim(runId, "step_1", "worker-b");
      return `build ${build} is green`;
    },
  });
  return { tool, runs };
}

function waitPacket(runId: string): HandoffPacket {
  const packet = packetOf(runId, TITLE);
  const surface = [{ name: "wait_build", scope: {} }];
  return { ...packet, body: PacketBody.parse({ ...packet.body, surface, bounds: { ...packet.body.bounds, surface } }) };
}

async function depsWith(tool: ReturnType<typeof buildWaiter>["tool"], runId: string, ownerToken: string, repeatSafe: { tool: string }[]) {
  const executor = fixture.executor([tool], {
    policy: [PolicyRule.parse({ id: "allow-wait", tool: "wait_build", decision: "allow" })],
    recordEffects: true,
    repeatSafe,
  });
  return fixture.deps(script, runId, { executor, ownerToken }) satisfies Promise<StepLoopDeps>;
}

describe("a call cut off mid-way that the deployment declares safe to repeat (tools.repeatSafe, issue 32.7)", () => {
  it("is run again when the step is re-dispatched, and the step completes instead of stopping on an unknown outcome", async () => {
    const runId = "run_repeat_safe";
    const { tool, runs } = buildWaiter(runId);
    const first = await runStepLoop(
      waitPacket(runId),
      await depsWith(tool, runId, "worker-a", [{ tool: "wait_*" }]),
      new AbortController().signal,
    ).catch((error: unknown) => error);
    expect(ReinError.hasCode(first, "lock_lost")).toBe(true);

    const resumed = await runStepLoop(
      waitPacket(runId),
      await depsWith(tool, runId, "worker-b", [{ tool: "wait_*" }]),
      new AbortController().signal,
    );
    expect(runs).toEqual(["42", "42"]);
    expect(resumed.status).toBe("completed");
    expect(resumed.toolCalls.map((call) => call.status)).toEqual(["ok"]);
    const kinds = (await fixture.runtime.trace.read(runId)).map((event) => event.kind);
    expect(kinds).toContain("tool.repeated");
    expect(kinds).not.toContain("tool.outcome_unknown");
  });

  it("still stops on an unknown outcome when no rule covers the call", async () => {
    const runId = "run_repeat_unsafe";
    const { tool, runs } = buildWaiter(runId);
    const rules = [{ tool: "deploy_*" }];
    await runStepLoop(waitPacket(runId), await depsWith(tool, runId, "worker-a", rules), new AbortController().signal).catch(
      () => undefined,
    );
    const resumed = await runStepLoop(waitPacket(runId), await depsWith(tool, runId, "worker-b", rules), new AbortController().signal);
    expect(runs).toEqual(["42"]);
    expect(resumed.status).toBe("failed");
    expect(resumed.toolCalls.map((call) => call.status)).toEqual(["outcome_unknown"]);
  });
});
