import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import type { McpConnection } from "../../src/mcp/mcp-tools.ts";
import type { Workspace } from "../../src/tools/workspace.ts";
import { tempWorkspace } from "../tools/harness.ts";
import type { TempWorkspace } from "../tools/workspace-per-test.ts";

/** The in-test MCP server (fixtures/test-mcp-server.ts) as a config's stdio server `srv`, its annotations trusted. */
export const TEST_MCP_SERVER = {
  name: "srv",
  command: process.execPath,
  args: ["--import", "tsx", fileURLToPath(new URL("./fixtures/test-mcp-server.ts", import.meta.url))],
  trustAnnotations: true,
};

/**
 * For the tests of the file that calls this: a temporary workspace, then
 * what `open` starts beside it, once before them; after them, that is closed
 * and the workspace removed.
 */
function perFile<T extends { close(): Promise<void> }>(open: (temp: TempWorkspace) => Promise<T>): () => TempWorkspace & { opened: T } {
  let temp: Awaited<ReturnType<typeof tempWorkspace>> | undefined;
  let opened: T | undefined;
  beforeAll(async () => {
    temp = await tempWorkspace();
    opened = await open(temp);
  });
  afterAll(async () => {
    await opened?.close();
    await temp?.cleanup();
    opened = undefined;
    temp = undefined;
  });
  return () => {
    if (!temp || !opened) throw new Error("the file's MCP fixture is open only while its tests run");
    return { workspace: temp.workspace, dir: temp.dir, opened };
  };
}

/** A connection, made by `connect` once the file's temporary workspace exists, for every test of the file. */
export function mcpConnectionPerFile(connect: (temp: TempWorkspace) => Promise<McpConnection>): TempWorkspace & { readonly connection: McpConnection } {
  const current = perFile(connect);
  return {
    get connection() {
      return current().opened;
    },
    get workspace() {
      return current().workspace;
    },
    get dir() {
      return current().dir;
    },
  };
}

/** A remote MCP server, started by `start`, and a temporary workspace, for every test of the file. */
export function remoteServerPerFile<T extends { close(): Promise<void> }>(start: () => Promise<T>): { readonly remote: T; readonly workspace: Workspace } {
  const current = perFile(start);
  return {
    get remote() {
      return current().opened;
    },
    get workspace() {
      return current().workspace;
    },
  };
}
