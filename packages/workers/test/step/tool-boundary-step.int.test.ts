import { hashOf } from "@rein/contracts";
import { type ModelRequest, ScriptedProvider } from "@rein/models";
import { defineTool } from "@rein/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runStepLoop } from "../../src/step-loop.ts";
import { packetOf, stepFixturePerTest } from "../support/step-fixture.ts";

const fixture = stepFixturePerTest();

/** What a server built on the MCP SDK's `registerTool` lists for a tuple argument: draft-07, the tuple as `items: [...]`. */
const DRAFT_07_TUPLE = {
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  properties: {
    point: { type: "array", items: [{ type: "number" }, { type: "number" }], additionalItems: false, minItems: 2, maxItems: 2 },
  },
  required: ["point"],
};

/** A tool shaped like an MCP tool whose name keeps its dot. */
function devserverStop(stops: number[][]) {
  return defineTool({
    name: "devserver.stop",
    description: "Stop the dev server at a point.",
    effect: "read",
    input: z.object({ point: z.tuple([z.number(), z.number()]) }),
    inputJsonSchema: DRAFT_07_TUPLE,
    run: async ({ point }) => {
      stops.push(point);
      return `stopped at ${point.join(",")}`;
    },
  });
}

const TITLE = "Stop the dev server";

describe("a worker step with a tool whose name and schema a provider would refuse", () => {
  it("offers it under a safe name with a 2020-12 schema, runs the model's call under its original name, and traces the mapping", async () => {
    const runId = "run_tool_boundary";
    const stops: number[][] = [];
    // The model calls the tool by the name it was shown, as a real model does.
    const provider = new ScriptedProvider({
      worker: [
        {
          match: TITLE,
          turns: [{ toolCalls: [{ id: "call_stop", name: "devserver_stop", input: { point: [3, 4] } }] }, { text: "Stopped." }],
        },
      ],
    });
    const deps = await fixture.deps({}, runId, { provider, executor: fixture.executor([devserverStop(stops)]) });
    const packet = packetOf(runId, TITLE);
    const surface = [{ name: "devserver.stop", scope: {} }];
    const result = await runStepLoop(
      { ...packet, body: { ...packet.body, surface, bounds: { ...packet.body.bounds, surface } } },
      deps,
      new AbortController().signal,
    );

    expect(result.status).toBe("completed");
    expect(stops).toEqual([[3, 4]]);
    expect(result.fingerprints).toEqual([hashOf({ tool: "devserver.stop", args: { point: [3, 4] } })]);

    // What the model was shown: the safe name, a 2020-12 schema, and its own call under that name in the next turn.
    const [first, second] = provider.requests as [ModelRequest, ModelRequest];
    const offered = first.tools?.find((tool) => tool.name === "devserver_stop");
    expect(offered?.inputSchema).toEqual({
      type: "object",
      properties: {
        point: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }], items: false, minItems: 2, maxItems: 2 },
      },
      required: ["point"],
    });
    expect(first.tools?.map((tool) => tool.name)).not.toContain("devserver.stop");
    expect(second.messages[1]?.content).toEqual([{ type: "tool_call", id: "call_stop", name: "devserver_stop", input: { point: [3, 4] } }]);

    // The trace: the mapping on each model call, Rein's name on everything else.
    const events = await fixture.runtime.trace.read(runId);
    const called = events.filter((event) => event.kind === "model.called");
    expect(called.map((event) => event.payload.toolNames)).toEqual([
      { "devserver.stop": "devserver_stop" },
      { "devserver.stop": "devserver_stop" },
    ]);
    expect(called[0]?.payload.tools).toContain("devserver.stop");
    const responded = events.find((event) => event.kind === "model.responded");
    expect(responded?.payload.content).toEqual([{ type: "tool_call", id: "call_stop", name: "devserver.stop", input: { point: [3, 4] } }]);
    expect(events.filter((event) => event.kind === "tool.executed").map((event) => event.payload.tool)).toEqual(["devserver.stop"]);
    expect(events.some((event) => event.kind === "tool.refused")).toBe(false);
  });

  it("refuses a call to a safe-looking name no tool was offered under, instead of guessing a tool for it", async () => {
    const runId = "run_tool_boundary_unknown";
    const stops: number[][] = [];
    const provider = new ScriptedProvider({
      worker: [
        {
          match: TITLE,
          turns: [{ toolCalls: [{ id: "call_guess", name: "devserver_stop_all", input: { point: [1, 1] } }] }, { text: "Gave up." }],
        },
      ],
    });
    const deps = await fixture.deps({}, runId, { provider, executor: fixture.executor([devserverStop(stops)]) });
    const packet = packetOf(runId, TITLE);
    const surface = [{ name: "devserver.stop", scope: {} }];
    await runStepLoop(
      { ...packet, body: { ...packet.body, surface, bounds: { ...packet.body.bounds, surface } } },
      deps,
      new AbortController().signal,
    );

    expect(stops).toEqual([]);
    const refused = (await fixture.runtime.trace.read(runId)).filter((event) => event.kind === "tool.refused");
    expect(refused.map((event) => event.payload.tool)).toEqual(["devserver_stop_all"]);
  });
});
