import { newId } from "@rein/contracts";
import type { TraceEvent } from "@rein/contracts/run";
import type { ModelScriptInput } from "@rein/models";
import { oneStepPlanner } from "@rein/models/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ConfiguredHarness,
  MODEL_KEYS,
  plannerAndWorker,
  type ScriptedModels,
  scriptedModels,
  startConfiguredHarness,
} from "../support/configured-harness.ts";
import { REPOSITORY, referenceMcpServer } from "../support/core-fixtures.ts";

// The official reference server, pinned in the orchestrator's devDependencies.
const EVERYTHING = referenceMcpServer("everything");
const GOAL = "Look at the MCP logo and the resources the reference server links to";
const TOOLS = ["every__get-tiny-image", "every__get-resource-links", "every__read_resource", "every__get-annotated-message"];
const TEXT_RESOURCE = "demo://resource/dynamic/text/2";

const script: ModelScriptInput = {
  planner: oneStepPlanner(
    GOAL,
    {
      title: "Fetch the logo and follow a resource link",
      objective: "Get the tiny image, list resource links, read the text one and report.",
      tools: TOOLS,
      output_contract: { description: "what the image and the resource say", format: "text" },
      budget: { maxTurns: 6, maxToolCalls: 6 },
    },
    { answer: "seen", claims: [{ text: "the logo was fetched", evidence: ["{{evidence:every__get-tiny-image}}"] }], gaps: [] },
  ),
  worker: [
    {
      match: "Fetch the logo and follow a resource link",
      turns: [
        {
          toolCalls: [
            { name: "every__get-tiny-image", input: {} },
            { name: "every__get-resource-links", input: { count: 2 } },
            { name: "every__get-annotated-message", input: { messageType: "error" } },
          ],
        },
        { toolCalls: [{ name: "every__read_resource", input: { uri: TEXT_RESOURCE } }] },
        { text: "The image is the MCP logo and resource 2 is a text resource." },
      ],
    },
  ],
};

const config = (servers: Servers) => ({
  ...plannerAndWorker(servers.planner, { baseURL: servers.worker.baseURL, kind: servers.format }),
  mcp: [
    {
      name: "every",
      command: process.execPath,
      args: [EVERYTHING, "stdio"],
      mounts: [REPOSITORY],
      include: ["get-tiny-image", "get-resource-links", "get-annotated-message"],
      trustAnnotations: true,
    },
  ],
});

interface Servers extends ScriptedModels {
  format: "anthropic" | "openai";
}

const workerBody = (servers: Servers, index: number) => servers.worker.requests[index]?.body as { messages: Record<string, unknown>[] };

describe.each(["anthropic", "openai"] as const)("a worker on %s calling the reference MCP server", { timeout: 120_000 }, (format) => {
  let servers: Servers;
  let harness: ConfiguredHarness;
  let events: TraceEvent[];
  let status: string;

  beforeAll(async () => {
    servers = { format, ...(await scriptedModels(script, format)) };
    harness = await startConfiguredHarness({ config: config(servers), env: MODEL_KEYS });
    const runId = await harness.submit({ text: GOAL, tools: TOOLS.map((name) => ({ name })) }, { runId: newId("run") });
    status = (await harness.waitFor(runId)).status;
    events = await harness.runtime.trace.read(runId);
  }, 120_000);
  afterAll(async () => {
    await harness?.close();
    await servers?.stop();
  });

  it("sends the image a tool returned to the model as an image block, and keeps the text beside it", () => {
    expect(status).toBe("done");
    const messages = workerBody(servers, 1).messages;
    const wire = JSON.stringify(messages);
    expect(wire).toContain("Here's the image you requested:");
    expect(wire).toMatch(/\[image image\/png, \d+ bytes, stored as artifact \S+, shown to you as an image\]/);
    if (format === "anthropic") {
      const results = messages
        .flatMap((message) => (Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : []))
        .filter((block) => block.type === "tool_result");
      const images = results
        .flatMap((result) => (Array.isArray(result.content) ? (result.content as Record<string, unknown>[]) : []))
        .filter((block) => block.type === "image");
      expect(images.length).toBeGreaterThanOrEqual(1);
      expect(images[0]).toMatchObject({ source: { type: "base64", media_type: "image/png", data: expect.stringMatching(/^iVBORw0KGgo/) } });
    } else {
      // Chat Completions takes images only in user messages: they follow the tool messages.
      const parts = messages
        .filter((message) => message.role === "user" && Array.isArray(message.content))
        .flatMap((message) => message.content as Record<string, unknown>[]);
      const image = parts.find((part) => part.type === "image_url") as { image_url: { url: string } } | undefined;
      expect(image?.image_url.url).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
      const roles = messages.map((message) => message.role);
      expect(roles.lastIndexOf("tool")).toBeLessThan(roles.lastIndexOf("user"));
    }
  });

  it("shows resource links with name, description and type, and follows one with read_resource through the pipeline", () => {
    const afterLinks = JSON.stringify(workerBody(servers, 1).messages);
    expect(afterLinks).toContain(
      `[resource link ${TEXT_RESOURCE}; name: Text Resource 2; description: Resource 2: plaintext resource; type: text/plain`,
    );
    expect(afterLinks).toContain("read it with every__read_resource");
    const afterRead = JSON.stringify(workerBody(servers, 2).messages);
    expect(afterRead).toContain(`[resource ${TEXT_RESOURCE} (text/plain)]`);
    const decided = events.find((event) => event.kind === "permission.decided" && event.payload.tool === "every__read_resource");
    expect(decided).toBeDefined();
    expect(events.find((event) => event.kind === "tool.executed" && event.payload.tool === "every__read_resource")?.payload.status).toBe(
      "ok",
    );
  });

  it("keeps content annotations and image sizes in the trace, never the image bytes", () => {
    const executed = events.find(
      (event) => event.kind === "tool.executed" && event.payload.tool === "every__get-annotated-message",
    )?.payload;
    expect(JSON.parse(String(executed?.annotations))).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: "text", annotations: expect.objectContaining({ priority: 1 }) })]),
    );
    const observed = events.find((event) => event.kind === "observation.made" && event.payload.tool === "every__get-tiny-image")?.payload;
    expect(observed?.images).toEqual([{ mediaType: "image/png", bytes: expect.any(Number) }]);
    expect(JSON.stringify(events.filter((event) => event.kind !== "tool.executed"))).not.toContain("iVBORw0KGgo");
  });
});
