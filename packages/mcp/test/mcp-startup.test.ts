import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ReinError } from "@rein/contracts";
import { connectMcpServer, startMcpServers } from "../src/mcp-tools.ts";
import { REPOSITORY, TEST_MCP_SERVER } from "./mcp-per-file.ts";

const filesystemServer = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-filesystem/dist/index.js");
const testServer = fileURLToPath(new URL("./fixtures/test-mcp-server.ts", import.meta.url));
const missingDir = "/nonexistent/rein-mcp-startup-test";
const broken = { name: "files", command: process.execPath, args: [filesystemServer, missingDir], mounts: [REPOSITORY] };
const working = { ...TEST_MCP_SERVER, args: ["--import", "tsx", testServer] };

describe("an MCP server that fails to start", () => {
  it("is reported with its command, its exit code and the end of its stderr", async () => {
    const error = await connectMcpServer(broken).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(ReinError.isInstance(error)).toBe(true);
    const { message, details } = error as ReinError;
    expect(message).toContain(`${process.execPath} ${filesystemServer} ${missingDir}`);
    expect(message).toContain("exited with code 1");
    expect(message).toContain("None of the specified directories are accessible");
    expect(details).toMatchObject({ server: "files", exitCode: 1 });
  }, 30_000);

  it("is left out when not required, and the rest start", async () => {
    const { connections, failures } = await startMcpServers([broken, working]);
    try {
      expect(connections.map((connection) => connection.server)).toEqual(["srv"]);
      expect(failures.map((failure) => failure.server)).toEqual(["files"]);
      expect(failures[0]?.error.message).toContain("None of the specified directories are accessible");
    } finally {
      await Promise.all(connections.map((connection) => connection.close()));
    }
  }, 30_000);

  it("stops everything when required", async () => {
    await expect(startMcpServers([working, { ...broken, required: true }])).rejects.toThrow(
      /MCP server files failed to start: .*exited with code 1/,
    );
  }, 30_000);
});
