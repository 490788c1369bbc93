import { mkdir, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { PolicyRule } from "@rein/contracts";
import { mcpCallScope } from "../src/mcp-argument-scopes.ts";
import { connectMcpServer } from "../src/mcp-tools.ts";
import { call, harness } from "@rein/tools/testing";
import { mcpConnectionPerFile, REPOSITORY } from "./mcp-per-file.ts";

// The official reference server, pinned in devDependencies.
const filesystemServer = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-filesystem/dist/index.js");
const CANARY = "SECRET_TOKEN=canary-env-5f1e";
const noEnvFiles: PolicyRule[] = [{ id: "no-env-files", tool: "*", decision: "deny", paths: ["**/.env"] }];

const fixture = mcpConnectionPerFile(async ({ workspace, dir }) => {
  await writeFile(join(workspace.root, ".env"), `${CANARY}\n`);
  await writeFile(join(workspace.root, "notes.txt"), "plain notes\n");
  await mkdir(join(workspace.root, "sub"));
  await writeFile(join(workspace.root, "sub", ".env"), `${CANARY}\n`);
  await symlink(join(workspace.root, ".env"), join(workspace.root, "innocent.txt"));
  await writeFile(join(dir, "outside.txt"), `${CANARY}\n`);
  return connectMcpServer(
    {
      name: "fs",
      command: process.execPath,
      // Allowed the parent too, so only Rein's checks stand between a path and the file.
      args: [filesystemServer, dir],
      mounts: [REPOSITORY],
      // Its own working directory is not the workspace: a relative path must still mean the workspace's file.
      cwd: dir,
      workspace: "read-write",
      trustAnnotations: true,
      scopes: { paths: ["path", "paths[]", "source", "destination"] },
    },
    // The sandbox shows it the temporary directory the workspace is in, as a deployment shows its workspace root.
    { workspaceRoot: dir },
  );
});

function run(name: string, input: unknown) {
  const surface = fixture.connection.tools.map((tool) => ({ name: tool.name, scope: {} }));
  return harness({ tools: fixture.connection.tools, surface, workspace: fixture.workspace, policy: noEnvFiles }).run(call(name, input));
}

describe("policy over MCP arguments, against the reference filesystem server", () => {
  it("reads an ordinary file through a path relative to the run's workspace", async () => {
    const outcome = await run("fs__read_text_file", { path: "notes.txt" });
    expect(outcome.observation.status).toBe("ok");
    expect(outcome.observation.content).toContain("plain notes");
  });

  it("a **/.env deny rule stops read_text_file of .env, and its content never reaches the model", async () => {
    const outcome = await run("fs__read_text_file", { path: ".env" });
    expect(outcome.observation.status).toBe("denied");
    expect(outcome.observation.content).not.toContain("canary-env");
    expect(outcome.observation.content).toContain("no-env-files");
  });

  it.each([
    ["an absolute path", () => ({ path: join(fixture.workspace.root, ".env") })],
    ["traversal that comes back", () => ({ path: "sub/../.env" })],
    ["a nested .env", () => ({ path: "sub/.env" })],
    ["a symlink to .env", () => ({ path: "innocent.txt" })],
    ["a dot segment", () => ({ path: "./sub/./.env" })],
  ])("the rule holds for %s", async (_label, input) => {
    const outcome = await run("fs__read_text_file", input());
    expect(outcome.observation.status).toBe("denied");
    expect(outcome.observation.content).not.toContain("canary-env");
  });

  it("the rule holds for one .env among several paths of read_multiple_files", async () => {
    const outcome = await run("fs__read_multiple_files", { paths: ["notes.txt", ".env"] });
    expect(outcome.observation.status).toBe("denied");
    expect(outcome.observation.content).not.toContain("canary-env");
  });

  it("the rule holds for move_file's source: .env cannot be renamed out of the rule's reach", async () => {
    const outcome = await run("fs__move_file", { source: ".env", destination: "plain.txt" });
    expect(outcome.observation.status).toBe("denied");
  });

  it.each([
    ["a path wrapped in an array", { path: [".env"] }],
    ["a path wrapped in an object", { path: { value: ".env" } }],
    ["a glob the server would read literally", { path: "[.]env" }],
  ])("refuses %s instead of letting it past the mapping", async (_label, input) => {
    const outcome = await run("fs__read_text_file", input);
    expect(outcome.observation.status).toBe("invalid_input");
    expect(outcome.observation.content).not.toContain("canary-env");
  });

  it("refuses a path outside the run's workspace though the server itself would allow it", async () => {
    for (const path of ["../outside.txt", join(fixture.dir, "outside.txt")]) {
      const outcome = await run("fs__read_text_file", { path });
      expect(outcome.observation.status).toBe("refused");
      expect(outcome.observation.content).toContain("outside");
      expect(outcome.observation.content).not.toContain("canary-env");
    }
  });
});

describe("mcpCallScope", () => {
  it("finds paths and hosts at nested and array selectors", () => {
    const scopes = { paths: ["edits[].path", "target.file"], hosts: ["url", "mirrors[]"] };
    const args = {
      edits: [{ path: "a.txt" }, { path: "b.txt" }],
      target: { file: "c.txt" },
      url: "https://api.example.com/x",
      mirrors: ["cdn.example.com:8443"],
    };
    expect(mcpCallScope("srv", scopes, args)).toEqual({
      services: ["mcp:srv"],
      paths: ["a.txt", "b.txt", "c.txt"],
      hosts: ["api.example.com:443", "cdn.example.com:8443"],
    });
  });

  it("refuses shapes the mapping does not expect", () => {
    const scopes = { paths: ["edits[].path"], hosts: ["url"] };
    expect(() => mcpCallScope("srv", scopes, { edits: { path: ".env" } })).toThrow(/edits is not an array/);
    expect(() => mcpCallScope("srv", scopes, { edits: [".env"] })).toThrow(/edits\[0\] is not an object/);
    expect(() => mcpCallScope("srv", scopes, { edits: [{ path: 5 }] })).toThrow(/edits\[0\]\.path is not a string/);
    expect(() => mcpCallScope("srv", scopes, { url: "not a url at all" })).toThrow(/url is not a URL or a host name/);
  });

  it("names only the server without a mapping", () => {
    expect(mcpCallScope("srv", undefined, { path: ".env" })).toEqual({ services: ["mcp:srv"] });
  });
});
