import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { connectMcpServer } from "../src/mcp-tools.ts";
import { call, harness } from "@rein/tools/testing";
import { mcpConnectionPerFile, REPOSITORY } from "./mcp-per-file.ts";

// The official reference server, pinned in devDependencies: its long-running operation reports progress at each step.
const EVERYTHING = fileURLToPath(new URL("../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
const LONG = "every__trigger-long-running-operation";
const BASE_TIMEOUT_MS = 1_000;
const CAP_MS = 3_000;

const fixture = mcpConnectionPerFile(() =>
  connectMcpServer({
    name: "every",
    command: process.execPath,
    args: [EVERYTHING, "stdio"],
    mounts: [REPOSITORY],
    include: ["trigger-long-running-operation", "echo"],
    trustAnnotations: true,
    timeoutMs: BASE_TIMEOUT_MS,
    maxTotalTimeoutMs: CAP_MS,
  }),
);

const surface = [
  { name: LONG, scope: {} },
  { name: "every__read_resource", scope: {} },
];

describe("progress from a long MCP call", { timeout: 30_000 }, () => {
  it("is traced, and extends a call past its timeout: 2 s of work with a 1 s timeout succeeds", async () => {
    const { run, trace } = harness({ tools: fixture.connection.tools, surface, workspace: fixture.workspace });
    // Ten steps of 200 ms, each ending with a progress notification: the 1 s timeout restarts at each.
    const outcome = await run(call(LONG, { duration: 2, steps: 10 }));
    expect(outcome.observation.status).toBe("ok");
    expect(outcome.observation.content).toContain("Long running operation completed");
    const progress = trace.ofKind("tool.progress").map((event) => event.payload);
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[0]).toMatchObject({ tool: LONG, progress: 1, total: 10 });
    // Throttled: ten reports in two seconds are not ten events, and what was left out is counted.
    expect(progress.length).toBeLessThan(10);
    expect(progress.length + progress.reduce((sum, event) => sum + event.skipped, 0)).toBeLessThanOrEqual(10);
    const kinds = trace.kinds();
    expect(kinds.lastIndexOf("tool.progress")).toBeLessThan(kinds.indexOf("tool.executed"));
  });

  it("does not extend it past the cap: 10 s of steady progress is cut off at 3 s as a timeout", async () => {
    const { run } = harness({ tools: fixture.connection.tools, surface, workspace: fixture.workspace });
    const started = performance.now();
    const outcome = await run(call(LONG, { duration: 10, steps: 50 }));
    expect(outcome.observation.status).toBe("timeout");
    expect(outcome.observation.content).toMatch(/did not finish within the most a call may take.*cap of 3000 ms/);
    // Trying again would run into the same cap: the model is told to ask for less instead.
    expect(outcome.result.failure).toBe("different_action");
    expect(outcome.result.attempts).toBe(1);
    expect(performance.now() - started).toBeLessThan(8_000);
  });

  it("without progress, the timeout stands: one 2 s step with a 1 s timeout times out", async () => {
    const { run } = harness({ tools: fixture.connection.tools, surface, workspace: fixture.workspace });
    const outcome = await run(call(LONG, { duration: 2, steps: 1 }));
    expect(outcome.observation.status).toBe("timeout");
    expect(outcome.observation.content).toMatch(/did not answer in time.*Request timed out/);
  });
});

describe("a JSON-RPC error from the reference server", () => {
  it("is an observation the model can correct when the server refuses the arguments (-32602)", async () => {
    const { run } = harness({ tools: fixture.connection.tools, surface, workspace: fixture.workspace });
    const outcome = await run(call("every__read_resource", { uri: "demo://resource/nowhere" }));
    expect(outcome.observation.status).toBe("error");
    expect(outcome.result.failure).toBe("different_action");
    expect(outcome.observation.content).toMatch(/refused the arguments \(invalid params\)/);
    expect(outcome.observation.content).toContain("demo://resource/nowhere");
  });
});
