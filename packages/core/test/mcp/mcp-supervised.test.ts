import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServer, type McpConnection } from "../../src/mcp/mcp-tools.ts";
import type { Workspace } from "../../src/tools/workspace.ts";
import { call, harness, tempWorkspace } from "../tools/harness.ts";

const serverPath = fileURLToPath(new URL("./fixtures/test-mcp-server.ts", import.meta.url));

let connection: McpConnection;
let workspace: Workspace;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ workspace, cleanup } = await tempWorkspace());
  connection = await connectMcpServer({ name: "srv", command: process.execPath, args: ["--import", "tsx", serverPath], trustAnnotations: true });
}, 60_000);
afterAll(async () => {
  await connection?.close();
  await cleanup();
});

describe("a supervised MCP server", () => {
  it("is restarted after it is killed, and the next call succeeds", async () => {
    const { run } = harness({ tools: connection.tools, surface: [{ name: "srv__pid", scope: {} }], workspace });
    const first = await run(call("srv__pid", {}));
    expect(first.observation.status).toBe("ok");
    const pid = Number(/^(\d+)$/m.exec(first.observation.content)?.[1]);
    expect(connection.status()).toMatchObject({ state: "running", restarts: 0, breaker: "closed" });

    process.kill(pid, "SIGKILL");
    await expect.poll(() => connection.status().restarts, { timeout: 30_000 }).toBe(1);
    const next = await run(call("srv__pid", {}));
    expect(next.observation.status).toBe("ok");
    expect(Number(/^(\d+)$/m.exec(next.observation.content)?.[1])).not.toBe(pid);
    expect(connection.status().lastExit).toMatchObject({ signal: "SIGKILL", killedFor: null });
  }, 60_000);
});
