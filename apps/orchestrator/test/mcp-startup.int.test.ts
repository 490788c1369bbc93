import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApprovalVerifier, generateKeyPair } from "@rein/signing";
import { createTestRuntime, type TestRuntime } from "@rein/runtime/testing";
import { submitGoal, readMcpStatus, unavailableMcpServers, buildTooling, knownToolNames, type Tooling } from "@rein/controller";
import { REPOSITORY } from "./support/core-fixtures.ts";

// The official reference server (pinned in @rein/mcp's devDependencies), given a directory that does not exist.
const filesystemServer = createRequire(import.meta.resolve("@rein/mcp")).resolve("@modelcontextprotocol/server-filesystem/dist/index.js");

describe("an MCP server that fails to start, not required", () => {
  let runtime: TestRuntime;
  let tooling: Tooling;

  beforeAll(async () => {
    runtime = await createTestRuntime({
      mcp: [{ name: "files", command: process.execPath, args: [filesystemServer, "/nonexistent/rein-startup"], mounts: [REPOSITORY] }],
    });
    tooling = await buildTooling(runtime, [], new ApprovalVerifier(generateKeyPair().publicKey));
  }, 60_000);
  afterAll(async () => {
    await tooling?.close();
    await runtime.cleanup();
  });

  it("lets the rest of Rein start, and says why the server is missing", () => {
    expect(tooling.registry.names()).toContain("read_file");
    expect(tooling.registry.names().some((name) => name.startsWith("files__"))).toBe(false);
    expect(tooling.unavailableMcp).toEqual([
      { server: "files", reason: expect.stringMatching(/exited with code 1.*None of the specified directories are accessible/s) },
    ]);
  });

  it("refuses at submit a goal granting its tools, with that reason, from any process reading the status board", async () => {
    await expect.poll(() => readMcpStatus(runtime), { timeout: 10_000 }).toHaveLength(1);
    const unavailable = await unavailableMcpServers(runtime);
    const options = { knownTools: knownToolNames(runtime.config, []), unavailableMcp: unavailable };
    await expect(submitGoal(runtime, { text: "read the notes", tools: [{ name: "files__read_text_file" }] }, options)).rejects.toThrow(
      /goal\.tools grants files__read_text_file of MCP server files, which is not available: .*None of the specified directories are accessible/s,
    );
    await expect(submitGoal(runtime, { text: "read the notes", tools: [{ name: "read_file" }] }, options)).resolves.toMatchObject({
      state: { status: "planning" },
    });
  });
});
