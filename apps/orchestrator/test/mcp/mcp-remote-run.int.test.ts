import { newId } from "@rein/contracts";
import type { ModelScriptInput } from "@rein/models";
import { findTraceEvent } from "@rein/trace";
import { oneStepPlanner } from "@rein/models/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRemoteServer } from "../../../../packages/mcp/test/fixtures/remote-mcp-server.ts";
import {
  type ConfiguredHarness,
  MODEL_KEYS,
  plannerAndWorker,
  type ScriptedModels,
  scriptedModels,
  startConfiguredHarness,
} from "../support/configured-harness.ts";

const TOKEN = "remote-mcp-CANARY-token-4c1e9b";
const GOAL = "Shout a greeting through the remote MCP server";

const script: ModelScriptInput = {
  planner: oneStepPlanner(
    GOAL,
    {
      title: "Shout hello remotely",
      objective: "Call the remote shout tool with hello and report its answer.",
      tools: ["remote__shout"],
      output_contract: { description: "what the server answered", format: "text" },
      budget: { maxTurns: 3, maxToolCalls: 2 },
    },
    { answer: "HELLO", claims: [{ text: "the server shouted", evidence: ["{{evidence:remote__shout}}"] }], gaps: [] },
  ),
  worker: [
    {
      match: "Shout hello remotely",
      turns: [{ toolCalls: [{ name: "remote__shout", input: { text: "hello" } }] }, { text: "The server answered HELLO." }],
    },
  ],
};

describe("a run using a remote MCP server over Streamable HTTP with a bearer token", { timeout: 120_000 }, () => {
  let remote: Awaited<ReturnType<typeof startRemoteServer>>;
  let models: ScriptedModels;
  let harness: ConfiguredHarness;

  beforeAll(async () => {
    remote = await startRemoteServer(TOKEN);
    models = await scriptedModels(script);
    const host = `127.0.0.1:${new URL(remote.url).port}`;
    harness = await startConfiguredHarness({
      env: { ...MODEL_KEYS, REMOTE_MCP_TOKEN: TOKEN },
      config: {
        ...plannerAndWorker(models.planner, models.worker),
        secrets: [{ env: "REMOTE_MCP_TOKEN", tools: ["mcp:remote"] }],
        policy: [{ id: "remote-mcp", tool: "remote__shout", hosts: [host], decision: "allow" }],
        mcp: [{ name: "remote", url: remote.url, auth: { bearer: "REMOTE_MCP_TOKEN" }, trustAnnotations: true }],
      },
    });
  }, 120_000);
  afterAll(async () => {
    await harness?.close();
    await models?.stop();
    await remote?.close();
  });

  it("calls the server with the token, finishes, and keeps the token out of the trace, the logs and the run state", async () => {
    const host = `127.0.0.1:${new URL(remote.url).port}`;
    const runId = await harness.submit(
      { text: GOAL, tools: [{ name: "remote__shout", scope: { hosts: [host] } }] },
      { runId: newId("run") },
    );
    const state = await harness.waitFor(runId);
    expect(state.status).toBe("done");
    const events = await harness.runtime.trace.read(runId);
    expect(findTraceEvent(events, "tool.executed", (event) => event.payload.tool === "remote__shout")?.payload.status).toBe("ok");
    expect(remote.authorizations.length).toBeGreaterThan(0);
    expect(remote.authorizations.every((header) => header === `Bearer ${TOKEN}`)).toBe(true);
    const everything = [
      JSON.stringify(events),
      JSON.stringify(await harness.runtime.runs.require(runId)),
      harness.logLines.join("\n"),
    ].join("\n");
    expect(everything).not.toContain(TOKEN);
  });
});
