import { describe, expect, it } from "vitest";
import { connectMcpServer } from "../src/mcp-tools.ts";
import { ToolRegistry } from "@rein/tools";
import { call, harness } from "@rein/tools/testing";
import { mcpConnectionPerFile, TEST_MCP_SERVER } from "./mcp-per-file.ts";

const registry = new ToolRegistry();
const changes: string[][] = [];
const fixture = mcpConnectionPerFile(async () => {
  const connection = await connectMcpServer(
    { ...TEST_MCP_SERVER, tools: { add_tool: { effect: "read" } } },
    {
      onToolsChanged: (changed, previous) => {
        registry.replace(previous, changed.tools);
        changes.push(changed.tools.map((tool) => tool.name));
      },
    },
  );
  registry.replace([], connection.tools);
  return connection;
});

describe("an MCP server's tool surface", () => {
  it("does not offer a task-only tool, and says why", () => {
    expect(fixture.connection.tools.map((tool) => tool.name)).not.toContain("srv__long_job");
    expect(fixture.connection.withheld).toEqual([{ tool: "long_job", reason: expect.stringContaining("execution.taskSupport: required") }]);
  });

  it("tells a step granting a task-only tool why it is not there, and refuses a call to it with the reason", async () => {
    const withheldRegistry = new ToolRegistry(fixture.connection.tools).withhold(
      "mcp:srv",
      fixture.connection.withheld.map(({ tool, reason }) => ({ name: `srv__${tool}`, reason })),
    );
    const surface = [
      { name: "srv__long_job", scope: {} },
      { name: "srv__echo", scope: {} },
    ];
    const { run, executor, trace } = harness({ tools: [], surface, workspace: fixture.workspace, deps: { registry: withheldRegistry } });
    expect(executor.schemasFor(surface).map((schema) => schema.name)).toEqual(["srv__echo"]);
    expect(executor.unavailable(surface)).toEqual([
      { tool: "srv__long_job", reason: expect.stringContaining("execution.taskSupport: required") },
    ]);
    const outcome = await run(call("srv__long_job", {}));
    expect(outcome.observation.status).toBe("refused");
    expect(outcome.observation.content).toContain("it is not offered: it must run as a task");
    expect(trace.ofKind("tool.refused")[0]?.payload.detail).toContain("execution.taskSupport: required");
  });

  it("lists again on notifications/tools/list_changed, and the registry offers the new tool to later calls", async () => {
    expect(registry.has("srv__added_later")).toBe(false);
    const { run } = harness({ tools: registry.list(), surface: [{ name: "srv__add_tool", scope: {} }], workspace: fixture.workspace });
    expect((await run(call("srv__add_tool", {}))).observation.status).toBe("ok");
    await expect.poll(() => registry.has("srv__added_later"), { timeout: 15_000 }).toBe(true);
    expect(changes.at(-1)).toContain("srv__echo");
    const later = harness({ tools: registry.list(), surface: [{ name: "srv__added_later", scope: {} }], workspace: fixture.workspace });
    const outcome = await later.run(call("srv__added_later", {}));
    expect(outcome.observation.status).toBe("ok");
    expect(outcome.observation.content).toContain("added later");
  });
});
