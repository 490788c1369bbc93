import { createToolExecutor, ToolRegistry } from "@rein/tools";
import { describe, expect, it } from "vitest";
import { openStep } from "../../src/step/step-context.ts";
import { saveTurn } from "../../src/step/save-turn.ts";
import { echoTool } from "@rein/tools/testing";
import { echoScript, packetOf, stepFixturePerTest } from "../support/step-fixture.ts";

const fixture = stepFixturePerTest();

describe("the context stage", () => {
  it("starts a new attempt from the packet's task alone", async () => {
    const deps = await fixture.deps(echoScript("Echo", 1), "run_new");
    const step = await openStep(packetOf("run_new", "Echo"), deps);
    expect(step.loop.turns).toBe(0);
    expect(step.loop.messages).toHaveLength(1);
    expect(JSON.stringify(step.loop.messages[0])).toContain("Echo.");
    expect(step.saved).toBeUndefined();
    expect(step.tools.map((tool) => tool.name)).toContain("echo");
  });

  it("says in the trace why granted tools are not offered: withheld by their MCP server, or not registered here", async () => {
    const registry = new ToolRegistry([echoTool]).withhold("mcp:srv", [
      { name: "srv__long_job", reason: "it must run as a task (execution.taskSupport: required)" },
    ]);
    const executor = createToolExecutor({
      registry,
      trace: fixture.runtime.trace,
      artifacts: { put: async () => "art_1" },
      config: fixture.runtime.config,
    });
    const deps = await fixture.deps(echoScript("Echo", 1), "run_withheld", { executor });
    const packet = packetOf("run_withheld", "Echo");
    const surface = [...packet.body.surface, { name: "srv__long_job", scope: {} }, { name: "gone__tool", scope: {} }];
    const step = await openStep({ ...packet, body: { ...packet.body, surface } }, deps);
    expect(step.tools.map((tool) => tool.name)).not.toContain("srv__long_job");
    await saveTurn(step);
    const events = await fixture.runtime.trace.read("run_withheld");
    const withheld = events.find((event) => event.kind === "step.tools_withheld");
    expect(withheld?.payload).toEqual({
      tools: [
        { tool: "srv__long_job", reason: "it must run as a task (execution.taskSupport: required)" },
        { tool: "gone__tool", reason: expect.stringContaining("no tool of this name is registered in this worker") },
      ],
    });
  });

  it("resumes this attempt from its checkpoint and says so in the trace", async () => {
    const deps = await fixture.deps(echoScript("Echo", 1), "run_resumed");
    const first = await openStep(packetOf("run_resumed", "Echo"), deps);
    first.loop.turns = 4;
    await saveTurn(first);

    const again = await openStep(packetOf("run_resumed", "Echo"), deps);
    expect(again.loop.turns).toBe(4);
    expect(again.saved).toEqual({ messages: 1, observations: 0, records: 0 });
    await saveTurn(again);
    const events = await fixture.runtime.trace.read("run_resumed");
    expect(events.map((event) => event.kind)).toEqual(["step.checkpoint_restored"]);
  });
});
