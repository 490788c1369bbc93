import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const inPackage = (name: string, path: string) => fileURLToPath(new URL(`../../../../packages/${name}/${path}`, import.meta.url));

/**
 * The repository, which holds the test MCP servers' code and node_modules: a
 * stdio server runs in the sandbox, so a test's config mounts it (`mounts`).
 */
export const REPOSITORY = fileURLToPath(new URL("../../../../", import.meta.url));

/** The mcp package's in-test MCP server (run it through tsx). */
export const TEST_MCP_SERVER_PATH = inPackage("mcp", "test/fixtures/test-mcp-server.ts");

/** The plugins package's fixture whose tools crash, hang and break the protocol. */
export const MISBEHAVING_PLUGIN_DIR = inPackage("plugins", "test/fixtures/misbehaving");

/** The official reference MCP server `name` (@modelcontextprotocol/server-<name>), pinned in the orchestrator's devDependencies. */
export function referenceMcpServer(name: "everything" | "memory" | "filesystem"): string {
  return createRequire(import.meta.url).resolve(`@modelcontextprotocol/server-${name}/dist/index.js`);
}
