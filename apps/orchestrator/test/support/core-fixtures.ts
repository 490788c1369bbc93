import { fileURLToPath } from "node:url";

const inCore = (path: string) => fileURLToPath(new URL(`../../../../packages/core/${path}`, import.meta.url));

/**
 * The repository, which holds the test MCP servers' code and node_modules: a
 * stdio server runs in the sandbox, so a test's config mounts it (`mounts`).
 */
export const REPOSITORY = fileURLToPath(new URL("../../../../", import.meta.url));

/** Core's in-test MCP server (run it through tsx). */
export const TEST_MCP_SERVER_PATH = inCore("test/mcp/fixtures/test-mcp-server.ts");

/** Core's plugin fixture whose tools crash, hang and break the protocol. */
export const MISBEHAVING_PLUGIN_DIR = inCore("test/plugins/fixtures/misbehaving");

/** The official reference MCP server `name` (@modelcontextprotocol/server-<name>), pinned in core's devDependencies. */
export function referenceMcpServer(name: "everything" | "memory" | "filesystem"): string {
  return inCore(`node_modules/@modelcontextprotocol/server-${name}/dist/index.js`);
}
