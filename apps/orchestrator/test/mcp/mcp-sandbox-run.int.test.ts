import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TraceEvent } from "@rein/contracts/run";
import { untrustedDataOf } from "@rein/presenter";
import type { ModelRequest, ModelScriptInput } from "@rein/models";
import { oneStepPlanner } from "@rein/models/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "../support/harness.ts";

// Issue 28, case 1: a configured MCP stdio server ran as the worker's user,
// outside the sandbox. Its tool read the worker's environment through /proc,
// the packet and approval private keys, and spoke to Redis, and its result
// put them in front of the model and into the trace. Here a hostile server
// (fixtures/hostile-mcp-server.mjs) tries the same through Rein's real
// stdio transport, in a run driven end to end.

const HOSTILE = fileURLToPath(new URL("./fixtures/hostile-mcp-server.mjs", import.meta.url));
const PACKET_KEY = "-----BEGIN PRIVATE KEY-----\npacket-key-canary-3b9d\n-----END PRIVATE KEY-----\n";
const APPROVAL_KEY = "-----BEGIN PRIVATE KEY-----\napproval-key-canary-71c0\n-----END PRIVATE KEY-----\n";
const DECLARED = "declared-token-5f1e2a";
const UNDECLARED = "undeclared-secret-9c4a77";
const GOAL = "Check the server's surroundings";

const script: ModelScriptInput = {
  planner: oneStepPlanner(
    GOAL,
    {
      title: "Probe",
      objective: "Call hostile__probe and report what it says.",
      tools: ["hostile__probe"],
      output_contract: { description: "what the probe said", format: "text" },
      budget: { maxTurns: 3, maxToolCalls: 2 },
    },
    { answer: "probed", claims: [{ text: "the probe ran", evidence: ["{{evidence:hostile__probe}}"] }], gaps: [] },
  ),
  worker: [
    {
      match: "Call hostile__probe",
      turns: [{ toolCalls: [{ name: "hostile__probe", input: {} }] }, { text: "The probe reported its surroundings." }],
    },
  ],
};

/** The probe's report as the worker's model was shown it: the tool result's fenced data, parsed. */
function probeReport(requests: readonly ModelRequest[]): Record<string, unknown> {
  for (const request of requests) {
    for (const message of request.messages) {
      for (const block of message.content) {
        if (block.type !== "tool_result") continue;
        const data = untrustedDataOf(block.content);
        if (data.includes("parentEnviron")) return JSON.parse(data) as Record<string, unknown>;
      }
    }
  }
  throw new Error("the worker was never shown the probe's result");
}

describe("a hostile MCP stdio server runs in the sandbox", { timeout: 120_000 }, () => {
  let base: string;
  let harness: Harness;
  let events: TraceEvent[];
  let report: Record<string, unknown>;
  let workspaceRoot: string;

  beforeAll(async () => {
    // The server's own directory holds the keys directory too: a mount must not show it.
    base = await mkdtemp(join(tmpdir(), "rein-hostile-mcp-"));
    const keysDir = join(base, ".rein", "keys");
    workspaceRoot = join(base, "workspaces");
    await mkdir(keysDir, { recursive: true });
    await mkdir(workspaceRoot);
    await writeFile(join(keysDir, "packet-private.pem"), PACKET_KEY);
    await writeFile(join(keysDir, "approval-private.pem"), APPROVAL_KEY);
    await copyFile(HOSTILE, join(base, "server.mjs"));
    harness = await startHarness(script, [], {
      env: { ...process.env, DECLARED_TOKEN: DECLARED, UNDECLARED_SECRET: UNDECLARED },
      config: {
        keysDir,
        workspaceRoot,
        secrets: [
          { env: "DECLARED_TOKEN", tools: ["mcp:hostile"] },
          { env: "UNDECLARED_SECRET", tools: ["http_request"], hosts: ["api.example.com:443"] },
        ],
        mcp: [
          {
            name: "hostile",
            command: process.execPath,
            args: [join(base, "server.mjs")],
            mounts: [base],
            env: { PARENT_PID: String(process.pid), KEYS_DIR: keysDir, WORKSPACE_ROOT: workspaceRoot, REDIS_PORT: "6379" },
            secretEnv: { HOSTILE_TOKEN: "DECLARED_TOKEN" },
            tools: { probe: { effect: "read" } },
          },
        ],
      },
    });
    const runId = await harness.submit({ text: GOAL, tools: [{ name: "hostile__probe" }] });
    await harness.waitFor(runId);
    events = await harness.runtime.trace.read(runId);
    report = probeReport(harness.worker.requests);
  }, 120_000);
  afterAll(async () => {
    await harness?.close();
    await rm(base, { recursive: true, force: true });
  });

  it("cannot read the worker's environment through /proc", () => {
    expect(report.parentEnviron).toMatch(/^ERR /);
    // Every process it can see is its own sandbox's: none has the test runner's environment.
    expect(JSON.stringify(report.environs)).not.toContain("VITEST");
    expect(JSON.stringify(report.environs)).not.toContain(UNDECLARED);
  });

  it("cannot see the keys directory, though it lies inside the server's own mount", () => {
    expect(report.keysListing).toBe("");
    expect(report.packetKey).toMatch(/^ERR /);
    expect(report.approvalKey).toMatch(/^ERR /);
  });

  it("cannot connect to Redis", () => {
    expect(report.redis).toMatch(/^ERR /);
  });

  it("sees the workspace root read-only, by default", async () => {
    expect(report.workspaceWrite).toMatch(/^ERR EROFS/);
    expect(await readdir(workspaceRoot)).not.toContain("hostile-was-here");
  });

  it("gets a clean environment: its config's variables and the one secret it declares", () => {
    expect(String(report.ownEnv).split(",")).toEqual([
      "HOME",
      "HOSTILE_TOKEN",
      "KEYS_DIR",
      "LANG",
      "PARENT_PID",
      "PATH",
      "REDIS_PORT",
      "REIN_WORKSPACE",
      "WORKSPACE_ROOT",
    ]);
  });

  it("puts none of the worker's secrets before the model or into the trace", () => {
    const shown = JSON.stringify(harness.worker.requests);
    const traced = JSON.stringify(events);
    for (const leak of ["packet-key-canary", "approval-key-canary", UNDECLARED, "PONG", "VITEST"]) {
      expect(shown, leak).not.toContain(leak);
      expect(traced, leak).not.toContain(leak);
    }
    expect(
      events.some((event) => event.kind === "tool.executed" && event.payload.tool === "hostile__probe" && event.payload.status === "ok"),
    ).toBe(true);
  });
});
