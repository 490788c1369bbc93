import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { connectMcpServer } from "../src/mcp-tools.ts";
import { call, harness } from "@rein/tools/testing";
import { mcpConnectionPerFile, TEST_MCP_SERVER } from "./mcp-per-file.ts";

// The server writes its markers beside the workspace: it is shown the temporary directory read-write.
const fixture = mcpConnectionPerFile(({ dir }) =>
  connectMcpServer({ ...TEST_MCP_SERVER, workspace: "read-write" }, { workspaceRoot: dir }),
);

const markerText = (path: string) => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
};

describe("cancelling a step with an MCP call in flight", () => {
  it("aborts the call at once and sends notifications/cancelled, so the server stops too", async () => {
    const marker = join(fixture.dir, "slow-marker");
    const { run } = harness({ tools: fixture.connection.tools, surface: [{ name: "srv__slow", scope: {} }], workspace: fixture.workspace });
    const controller = new AbortController();
    const outcome = run(call("srv__slow", { marker }), { signal: controller.signal });
    await expect.poll(() => markerText(marker), { timeout: 15_000 }).toBe("started");
    controller.abort();
    // An interrupted call gives the model no observation: the step ends.
    await expect(outcome).rejects.toThrow(/srv__slow/);
    // The server's handler saw its request cancelled: the SDK sent notifications/cancelled on the abort.
    await expect.poll(() => markerText(marker), { timeout: 15_000 }).toBe("cancelled");
  }, 60_000);

  it("calls nothing once the step is cancelled", async () => {
    const marker = join(fixture.dir, "never-marker");
    const { run } = harness({
      tools: fixture.connection.tools,
      surface: [
        { name: "srv__slow", scope: {} },
        { name: "srv__echo", scope: {} },
      ],
      workspace: fixture.workspace,
    });
    const controller = new AbortController();
    controller.abort();
    await expect(run(call("srv__slow", { marker }), { signal: controller.signal })).rejects.toThrow();
    // The server answers in order: once a later echo is answered, a slow call sent before it would have started.
    expect((await run(call("srv__echo", { text: "sync" }))).observation.status).toBe("ok");
    expect(markerText(marker)).toBe("");
  }, 60_000);
});
