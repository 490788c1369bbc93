import { join, resolve } from "node:path";
import { ReinConfig } from "@rein/runtime";
import { describe, expect, it } from "vitest";
import { RecordedOutputs } from "../../src/replay/recorded-outputs.ts";
import { replayToolSet } from "../../src/replay/replay-tools.ts";

const config = ReinConfig.parse({
  sandbox: "none",
  plugins: [{ path: join(resolve(import.meta.dirname, "../../../.."), "examples/plugins/incident-python") }],
});
const recorded = new RecordedOutputs([]);

describe("the tools of a replay over a deployment with plugins", () => {
  it("--stub-tools stubs plugin tools from the recording too, without starting the plugin", async () => {
    const { tools, stubbed } = await replayToolSet(config, [], recorded, { mode: "stub", allowExternal: false });
    expect(stubbed).toEqual(expect.arrayContaining(["search_logs", "restart_service"]));
    const searchLogs = tools.find((tool) => tool.name === "search_logs");
    expect(searchLogs?.effect).toBe("read");
    await expect(
      searchLogs?.run({ service: "payment-api" }, { stepId: "s1", callId: "c1", idempotencyKey: "run:s1:1:0" } as never),
    ).rejects.toThrow(/the recording has no result for search_logs/);
  });

  it("real mode leaves plugin tools to the replay's own tooling, which starts the plugin", async () => {
    const { tools } = await replayToolSet(config, [], recorded, { mode: "real", allowExternal: false });
    const names = tools.map((tool) => tool.name);
    expect(names).toContain("read_file");
    expect(names).not.toContain("search_logs");
  });
});
