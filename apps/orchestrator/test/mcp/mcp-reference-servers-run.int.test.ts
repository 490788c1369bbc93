import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newId } from "@rein/contracts";
import type { ModelScriptInput } from "@rein/models";
import type { TypedTraceEvent } from "@rein/trace";
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

// The official reference servers, pinned in the orchestrator's devDependencies.
const GOAL = "Remember who owns the service, then check its notes";
const CANARY = "SECRET_TOKEN=canary-env-81c2";
const TOOLS = ["memory__create_entities", "memory__search_nodes", "fs__read_text_file"];

const script: ModelScriptInput = {
  planner: oneStepPlanner(
    GOAL,
    {
      title: "Record the owner and read the notes",
      objective: "Store the owner in memory, read notes.md (and try .env), then look the owner up again.",
      tools: TOOLS,
      output_contract: { description: "the owner and what the notes say", format: "text" },
      budget: { maxTurns: 6, maxToolCalls: 6 },
    },
    { answer: "owned by team-ops", claims: [{ text: "team-ops owns it", evidence: ["{{evidence:memory__search_nodes}}"] }], gaps: [] },
  ),
  worker: [
    {
      match: "Record the owner and read the notes",
      turns: [
        {
          toolCalls: [
            {
              name: "memory__create_entities",
              input: { entities: [{ name: "checkout-service", entityType: "service", observations: ["owned by team-ops"] }] },
            },
            { name: "fs__read_text_file", input: { path: "notes.md" } },
            { name: "fs__read_text_file", input: { path: ".env" } },
          ],
        },
        { toolCalls: [{ name: "memory__search_nodes", input: { query: "checkout" } }] },
        { text: "checkout-service is owned by team-ops; the notes say deploys happen on Tuesdays." },
      ],
    },
  ],
};

describe("a whole run against the reference memory and filesystem servers", { timeout: 120_000 }, () => {
  let models: ScriptedModels;
  let harness: ConfiguredHarness;
  let dir: string;
  let events: TypedTraceEvent[];
  let status: string;

  const executed = (tool: string) =>
    events.flatMap((event) => (event.kind === "tool.executed" && event.payload.tool === tool ? [event.payload] : []));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "rein-mcp-reference-"));
    const seed = join(dir, "seed");
    const workspaceRoot = join(dir, "workspaces");
    await Promise.all([mkdir(seed), mkdir(workspaceRoot), mkdir(join(dir, "memory"))]);
    await writeFile(join(seed, "notes.md"), "Deploys happen on Tuesdays.\n");
    await writeFile(join(seed, ".env"), `${CANARY}\n`);
    models = await scriptedModels(script, "openai");
    harness = await startConfiguredHarness({
      config: {
        workspaceRoot,
        ...plannerAndWorker(models.planner, { baseURL: models.worker.baseURL, kind: "openai" }),
        policy: [
          { id: "no-env-files", tool: "*", decision: "deny", paths: ["**/.env"] },
          // A write to the test's own memory file: approvals are the sre-triage tests' subject, not this one's.
          { id: "memory-writes", tool: "memory__create_entities", decision: "allow" },
        ],
        mcp: [
          // Its memory file is its own state: a writable mount of its directory.
          {
            name: "memory",
            command: process.execPath,
            args: [referenceMcpServer("memory")],
            env: { MEMORY_FILE_PATH: join(dir, "memory", "memory.jsonl") },
            mounts: [REPOSITORY, { path: join(dir, "memory"), writable: true }],
            trustAnnotations: true,
          },
          // The server may read every run's workspace: only Rein's policy stands between a path and the file.
          {
            name: "fs",
            command: process.execPath,
            args: [referenceMcpServer("filesystem"), workspaceRoot],
            mounts: [REPOSITORY],
            include: ["read_text_file"],
            trustAnnotations: true,
            scopes: { paths: ["path"] },
          },
        ],
      },
      env: MODEL_KEYS,
    });
    const runId = await harness.submit({ text: GOAL, tools: TOOLS.map((name) => ({ name })) }, { runId: newId("run"), workspaceDir: seed });
    status = (await harness.waitFor(runId)).status;
    events = await harness.runtime.trace.read(runId);
  }, 120_000);
  afterAll(async () => {
    await harness?.close();
    await models?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("ends done, the memory server keeping what an earlier turn stored for a later one", () => {
    expect(status).toBe("done");
    expect(executed("memory__create_entities")[0]?.status).toBe("ok");
    expect(executed("memory__search_nodes")[0]?.status).toBe("ok");
    // What the model read after the lookup, in a later turn than the store.
    expect(JSON.stringify(models.worker.requests[2]?.body)).toMatch(/checkout-service[\s\S]*owned by team-ops/);
  });

  it("reads an ordinary file of the run's workspace through the filesystem server", () => {
    expect(executed("fs__read_text_file").map((payload) => payload.status)).toContain("ok");
    expect(JSON.stringify(models.worker.requests[1]?.body)).toContain("Deploys happen on Tuesdays.");
  });

  it("a **/.env deny rule stops the filesystem server's read, and the secret never reaches the model", () => {
    const denied = events.filter(
      (event) => event.kind === "permission.decided" && event.payload.tool === "fs__read_text_file" && event.payload.decision === "deny",
    );
    expect(denied).toHaveLength(1);
    expect(JSON.stringify(denied[0]?.payload)).toContain("no-env-files");
    expect(JSON.stringify(models.worker.requests.map((request) => request.body))).not.toContain("canary-env");
    expect(JSON.stringify(events)).not.toContain("canary-env");
  });
});
