import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/config.ts";
import { McpServerConfig, connectMcpServer } from "@rein/mcp";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "rein-mcp-config-"));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe("a stdio server's sandbox settings in config", () => {
  it("default to a read-only workspace, no mounts and no hosts, and resolve relative mounts and cwd from the config file", async () => {
    const file = join(dir, "rein.config.json");
    await writeFile(
      file,
      JSON.stringify({
        mcp: [
          {
            name: "tickets",
            command: "node",
            args: ["server.js"],
            mounts: ["mcp/tickets", { path: "state", writable: true }],
            cwd: "mcp/tickets",
          },
          { name: "plain", command: "node" },
        ],
      }),
    );
    const [tickets, plain] = loadConfig({ file, env: {} }).mcp;
    expect(tickets).toMatchObject({
      mounts: [
        { path: join(dir, "mcp/tickets"), writable: false },
        { path: join(dir, "state"), writable: true },
      ],
      cwd: join(dir, "mcp/tickets"),
    });
    expect(plain).toMatchObject({ workspace: "read-only", mounts: [], hosts: [] });
  });

  it("refuses mounts and hosts for a remote server, and a host without its port", () => {
    expect(
      McpServerConfig.safeParse({ name: "remote", url: "https://mcp.example.com/mcp", mounts: ["/opt"] }).error?.issues[0]?.message,
    ).toMatch(/mounts and hosts are for a stdio server/);
    expect(McpServerConfig.safeParse({ name: "local", command: "node", hosts: ["api.example.com"] }).error?.issues[0]?.message).toMatch(
      /expected host:port/,
    );
  });

  it("refuses a working directory the sandbox would not show, before starting anything", async () => {
    await expect(connectMcpServer({ name: "lost", command: "node", mounts: [dir], cwd: "/opt" })).rejects.toThrow(
      /MCP server lost has cwd \/opt, which its sandbox does not show/,
    );
  });
});
