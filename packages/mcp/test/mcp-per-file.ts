import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import type { McpConnection } from "../src/mcp-tools.ts";
import { fixtureAround, liveView } from "@rein/contracts/testing";
import type { Workspace } from "@rein/tools";
import { tempWorkspace, type TempWorkspace } from "@rein/tools/testing";

/** The repository, where the test server's code and its node_modules are. */
export const REPOSITORY = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * The in-test MCP server (fixtures/test-mcp-server.ts) as a config's stdio
 * server `srv`, its annotations trusted. It runs in the sandbox like any
 * server, so it mounts the repository for its code and tsx.
 */
export const TEST_MCP_SERVER = {
  name: "srv",
  command: process.execPath,
  args: ["--import", "tsx", fileURLToPath(new URL("./fixtures/test-mcp-server.ts", import.meta.url))],
  mounts: [REPOSITORY],
  cwd: fileURLToPath(new URL("../", import.meta.url)),
  trustAnnotations: true,
};

/**
 * For the tests of the file that calls this: a temporary workspace, then
 * what `open` starts beside it, once before them; after them, that is closed
 * and the workspace removed.
 */
function withWorkspacePerFile<T extends { close(): Promise<void> }>(what: string, open: (temp: TempWorkspace) => Promise<T>) {
  return fixtureAround(
    beforeAll,
    afterAll,
    what,
    async () => {
      const temp = await tempWorkspace();
      try {
        return { ...temp, opened: await open(temp) };
      } catch (error) {
        await temp.cleanup();
        throw error;
      }
    },
    async ({ opened, cleanup }) => {
      await opened.close();
      await cleanup();
    },
  );
}

/** A connection, made by `connect` once the file's temporary workspace exists, for every test of the file. */
export function mcpConnectionPerFile(
  connect: (temp: TempWorkspace) => Promise<McpConnection>,
): TempWorkspace & { readonly connection: McpConnection } {
  const current = withWorkspacePerFile("the file's MCP connection", connect);
  return liveView(() => ({ ...current(), connection: current().opened }), ["workspace", "dir", "connection"]);
}

/** A remote MCP server, started by `start`, and a temporary workspace, for every test of the file. */
export function remoteServerPerFile<T extends { close(): Promise<void> }>(
  start: () => Promise<T>,
): { readonly remote: T; readonly workspace: Workspace } {
  const current = withWorkspacePerFile("the file's remote MCP server", start);
  return liveView(() => ({ ...current(), remote: current().opened }), ["workspace", "remote"]);
}
