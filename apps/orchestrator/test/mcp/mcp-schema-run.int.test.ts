import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import type { ModelRequest, ModelScriptInput } from "@rein/models";
import type { TypedTraceEvent } from "@rein/trace";
import { plannerOfSteps } from "@rein/models/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "../support/harness.ts";

// Issue 28, case 5: tool schemas from an MCP server reached the worker's
// request unfenced: a nested property description carried `<|im_start|>`
// intact, as did titles, defaults and schemas replaced by list_changed
// mid-run. Here a server (fixtures/schema-mcp-server.mjs) poisons every
// text of its schema and relists its tools while the first step runs.

const SERVER = fileURLToPath(new URL("./fixtures/schema-mcp-server.mjs", import.meta.url));
const GOAL = "Look the thing up twice";
const TOOLS = ["schemer__lookup"];
const RAW = [/<\|im_start\|>/, /<\|im_end\|>/, /<\s*\/?\s*(system|assistant|user|tool_result)\b/i];

const step = (title: string, objective: string) => ({
  title,
  objective,
  tools: TOOLS,
  output_contract: { description: "what the lookup found", format: "text" as const },
  budget: { maxTurns: 3, maxToolCalls: 2 },
});

const script: ModelScriptInput = {
  planner: plannerOfSteps(
    [step("First lookup", "Call schemer__lookup once."), step("Second lookup", "Call schemer__lookup again.")],
    { answer: "found", claims: [{ text: "the lookup found it", evidence: ["{{evidence:schemer__lookup}}"] }], gaps: [] },
    GOAL,
  ),
  worker: [
    {
      match: "Call schemer__lookup once.",
      turns: [{ toolCalls: [{ name: "schemer__lookup", input: { query: "thing" } }] }, { text: "Found it." }],
    },
    {
      match: "Call schemer__lookup again.",
      turns: [{ toolCalls: [{ name: "schemer__lookup", input: { query: "thing" } }] }, { text: "Found it again." }],
    },
  ],
};

const lookupOf = (request: ModelRequest) => request.tools?.find((tool) => tool.name === "schemer__lookup");

describe("tool schemas from an MCP server reach the worker as outside text", { timeout: 120_000 }, () => {
  let harness: Harness;
  let events: TypedTraceEvent[];
  let requests: ModelRequest[];

  beforeAll(async () => {
    harness = await startHarness(script, [], {
      config: {
        mcp: [
          {
            name: "schemer",
            command: process.execPath,
            args: [SERVER],
            mounts: [dirname(SERVER)],
            tools: { lookup: { effect: "read" }, bad_enum: { effect: "read" } },
          },
        ],
      },
    });
    const runId = await harness.submit({ text: GOAL, tools: TOOLS.map((name) => ({ name })) });
    await harness.waitFor(runId);
    events = (await harness.runtime.trace.read(runId)) as TypedTraceEvent[];
    requests = harness.worker.requests;
  }, 120_000);
  afterAll(async () => {
    await harness?.close();
  });

  it("never shows the worker's model a raw role or chat-template token, in any listing", () => {
    expect(requests.length).toBeGreaterThanOrEqual(4);
    for (const request of requests) {
      const tools = JSON.stringify(request.tools);
      for (const raw of RAW) expect(tools).not.toMatch(raw);
    }
  });

  it("shows the nested descriptions sanitized, and says whose words they are", () => {
    const lookup = lookupOf(requests[0] as ModelRequest);
    const query = (lookup?.inputSchema as { properties: { query: { description: string; title: string; default: string } } } | undefined)
      ?.properties.query;
    if (!query) throw new Error("the worker was not offered schemer__lookup with its query argument");
    expect(query.description).toMatch(/^What to find\. \[neutralized: chat-template token\]/);
    expect(query.title).toContain("[neutralized: chat-template token]");
    expect(query.default).toContain("[neutralized: chat-template token]");
    expect(lookup?.description).toMatch(
      /^What MCP server schemer says this tool does \(the descriptions in its input schema are the server's words too\), between the untrusted-data markers/,
    );
    // What the model must send is unchanged.
    expect(lookup?.inputSchema).toMatchObject({
      required: ["query"],
      properties: { filters: { properties: { mode: { enum: ["fast", "slow"] } } } },
    });
  });

  it("offers the second step the relisted schema, sanitized again, and withholds a tool whose enum cannot be", () => {
    const second = requests.find((request) => JSON.stringify(request.messages).includes("Call schemer__lookup again.")) as ModelRequest;
    const lookup = lookupOf(second);
    expect(lookup?.description).toContain("second listing");
    expect(JSON.stringify(lookup?.inputSchema)).toContain("Second listing query. [neutralized: chat-template token]");
    expect(harness.tooling.registry.has("schemer__bad_enum")).toBe(false);
    expect(harness.tooling.registry.whyWithheld("schemer__bad_enum")).toMatch(
      /input schema cannot be shown to a model: properties\.mode\.enum\[1\]/,
    );
  });

  it("traces which listing each step's schemas came from and what the presenter found", () => {
    const traced = events.filter((event) => event.kind === "step.tool_schemas").map((event) => event.payload.tools);
    expect(traced).toEqual([
      [{ tool: "schemer__lookup", source: "mcp:schemer", listing: 1, flags: expect.arrayContaining(["role_tag", "special_token"]) }],
      [{ tool: "schemer__lookup", source: "mcp:schemer", listing: 2, flags: expect.arrayContaining(["special_token"]) }],
    ]);
  });
});
