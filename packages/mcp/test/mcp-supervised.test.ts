import { describe, expect, it } from "vitest";
import { connectMcpServer } from "../src/mcp-tools.ts";
import { call, harness } from "@rein/tools/testing";
import { mcpConnectionPerFile, TEST_MCP_SERVER } from "./mcp-per-file.ts";

const fixture = mcpConnectionPerFile(() => connectMcpServer(TEST_MCP_SERVER));

describe("a supervised MCP server", () => {
  it("is restarted after it is killed, and the next call succeeds", async () => {
    const { run } = harness({ tools: fixture.connection.tools, surface: [{ name: "srv__pid", scope: {} }], workspace: fixture.workspace });
    const first = await run(call("srv__pid", {}));
    expect(first.observation.status).toBe("ok");
    // The server's own pid is its sandbox's; the host knows the sandbox by the process Rein started.
    const pid = fixture.connection.status().pid;
    expect(pid).toBeGreaterThan(0);
    expect(fixture.connection.status()).toMatchObject({ state: "running", restarts: 0, breaker: "closed" });

    process.kill(pid as number, "SIGKILL");
    await expect.poll(() => fixture.connection.status().restarts, { timeout: 30_000 }).toBe(1);
    const next = await run(call("srv__pid", {}));
    expect(next.observation.status).toBe("ok");
    expect(fixture.connection.status().pid).not.toBe(pid);
    expect(fixture.connection.status().lastExit).toMatchObject({ signal: "SIGKILL", killedFor: null });
  }, 60_000);
});
