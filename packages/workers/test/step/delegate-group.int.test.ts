import type { HandoffPacket, ResumeInput } from "@rein/contracts";
import { describe, expect, it } from "vitest";
import { runtimeToolSchemas } from "../../src/runtime-tools.ts";
import { runStepLoop } from "../../src/step-loop.ts";
import { packetOf, stepFixturePerTest } from "../support/step-fixture.ts";

const fixture = stepFixturePerTest();

const delegateCall = (title: string, join?: { rule: string; n?: number }) => ({
  name: "delegate",
  input: {
    reason: "an independent part",
    task: { title, objective: `Look up ${title} and report it.`, tools: [{ name: "echo", scope: {} }] },
    ...(join ? { join } : {}),
  },
});

/** A step that asks for three children in one turn, then reports. */
const script = {
  worker: [
    {
      match: "Survey",
      turns: [
        { toolCalls: [delegateCall("Part one"), delegateCall("Part two"), delegateCall("Part three")] },
        { text: "All parts reported." },
      ],
    },
    {
      match: "Race",
      turns: [{ toolCalls: [delegateCall("Mirror one", { rule: "any" }), delegateCall("Mirror two")] }, { text: "One mirror answered." }],
    },
  ],
};

const resumed = (packet: HandoffPacket, resume: ResumeInput): HandoffPacket => ({ ...packet, body: { ...packet.body, resume } });
const answer = (childStepId: string, callIndex: number, status = "completed") => ({
  kind: "delegation" as const,
  childStepId,
  status,
  summary: `${childStepId} says ${status}`,
  observationIds: [],
  callIndex,
});

describe("several delegate calls in one turn", () => {
  it("suspend the step once for all of them, and the resume answers each call with its own child's result, in the order asked", async () => {
    const deps = await fixture.deps(script, "run_delegate_group");
    const packet = packetOf("run_delegate_group", "Survey");
    const first = await runStepLoop(packet, deps, new AbortController().signal);
    expect(first.status).toBe("delegated");
    expect(first.suspension).toMatchObject({
      kind: "delegate",
      callIndex: 0,
      request: { title: "Part one" },
      more: [
        { callIndex: 1, request: { title: "Part two" } },
        { callIndex: 2, request: { title: "Part three" } },
      ],
    });

    // The children finished in reverse order; the controller answers in the order asked, each naming its call.
    const resume: ResumeInput = { kind: "delegations", children: [answer("s1.1", 0), answer("s1.2", 1, "failed"), answer("s1.3", 2)] };
    const finished = await runStepLoop(resumed(packet, resume), deps, new AbortController().signal);
    expect(finished.status).toBe("completed");
    const answers = finished.observations.filter((observation) => observation.tool === "delegate");
    expect(answers.map((observation) => [observation.content.split(".")[0], observation.status])).toEqual([
      ["child step s1", "ok"],
      ["child step s1", "error"],
      ["child step s1", "ok"],
    ]);
    expect(answers.map((observation) => /child step (s1\.\d)/.exec(observation.content)?.[1])).toEqual(["s1.1", "s1.2", "s1.3"]);
  });

  it("carry the join rule a call names, so the controller joins the children by it", async () => {
    const deps = await fixture.deps(script, "run_delegate_race");
    const first = await runStepLoop(packetOf("run_delegate_race", "Race"), deps, new AbortController().signal);
    expect(first.suspension).toMatchObject({ kind: "delegate", join: { rule: "any" }, more: [{ request: { title: "Mirror two" } }] });
    expect(first.suspension?.kind === "delegate" && first.suspension.more?.[0]?.join).toBeUndefined();
  });

  it("answer a child its join cancelled as a stopped child, not as a failed call the step must follow up", async () => {
    const deps = await fixture.deps(script, "run_delegate_race_won");
    const packet = packetOf("run_delegate_race_won", "Race");
    await runStepLoop(packet, deps, new AbortController().signal);
    const resume: ResumeInput = { kind: "delegations", children: [answer("s1.1", 0), answer("s1.2", 1, "cancelled")] };
    const finished = await runStepLoop(resumed(packet, resume), deps, new AbortController().signal);
    const answers = finished.observations.filter((observation) => observation.tool === "delegate");
    expect(answers.map((observation) => observation.status)).toEqual(["ok", "ok"]);
    expect(answers[1]?.content).toMatch(/child step s1\.2 was cancelled: its group joined without it/);
    expect(finished.toolCalls.map((call) => call.status)).toEqual(["ok", "ok"]);
  });

  it("offer the join rule in the delegate tool's schema, described for the model", () => {
    const delegate = runtimeToolSchemas({ canDelegate: true }).find((schema) => schema.name === "delegate");
    const properties = (delegate?.inputSchema as { properties?: Record<string, { description?: string }> } | undefined)?.properties;
    const join = properties?.join;
    expect(join?.description).toMatch(/any/);
    expect(delegate?.description).toMatch(/several times in one turn/);
  });
});
