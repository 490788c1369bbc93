import type { HandoffPacket, ResumeInput } from "@rein/contracts";
import { describe, expect, it } from "vitest";
import { runStepLoop } from "../../src/step-loop.ts";
import { packetOf, stepFixturePerTest } from "../support/step-fixture.ts";

const fixture = stepFixturePerTest();

const delegateCall = (title: string) => ({
  name: "delegate",
  input: { reason: "a separate job", task: { title, objective: `${title}.`, tools: [{ name: "echo", scope: {} }] } },
});

/** A step that delegates, and once its first child's result is in, delegates again. */
const script = {
  worker: [
    {
      match: "Survey",
      turns: [
        { toolCalls: [delegateCall("First child")] },
        { toolCalls: [delegateCall("Second child")] },
        { text: "Both children reported." },
      ],
    },
  ],
};

const resumed = (packet: HandoffPacket, resume: ResumeInput): HandoffPacket => ({ ...packet, body: { ...packet.body, resume } });
const firstChildDone: ResumeInput = {
  kind: "delegation",
  childStepId: "step_1.1",
  status: "completed",
  summary: "the first child's result",
  observationIds: [],
  callIndex: 0,
};

describe("a resumed step's pending call", () => {
  it("is answered only by the resume that names it: an older resume re-sent after a lost worker leaves a newer suspension waiting", async () => {
    const deps = await fixture.deps(script, "run_resume_match");
    const packet = packetOf("run_resume_match", "Survey");
    const first = await runStepLoop(packet, deps, new AbortController().signal);
    expect(first.suspension).toMatchObject({ kind: "delegate", callIndex: 0 });

    // Resumed with the first child's result, the step saves its second delegation; its report never reaches the controller.
    const second = await runStepLoop(resumed(packet, firstChildDone), deps, new AbortController().signal);
    expect(second.suspension).toMatchObject({ kind: "delegate", callIndex: 1, request: { title: "Second child" } });

    // The controller re-dispatches the step with the resume it last sent: the second delegation is not answered with it.
    const redispatched = await runStepLoop(resumed(packet, firstChildDone), deps, new AbortController().signal);
    expect(redispatched.status).toBe("delegated");
    expect(redispatched.suspension).toMatchObject({ kind: "delegate", callIndex: 1, request: { title: "Second child" } });
    // The first child's result answers its own call once, and nothing else.
    expect(redispatched.observations.filter((observation) => observation.content.includes("child step step_1.1"))).toHaveLength(1);

    const secondChildDone: ResumeInput = { ...firstChildDone, childStepId: "step_1.2", summary: "the second child's result", callIndex: 1 };
    const finished = await runStepLoop(resumed(packet, secondChildDone), deps, new AbortController().signal);
    expect(finished.status).toBe("completed");
  });
});
