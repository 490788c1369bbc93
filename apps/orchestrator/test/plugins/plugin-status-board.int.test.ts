import { createTestRuntime } from "@rein/runtime/testing";
import { describe, expect, it } from "vitest";
import { readPluginStatus } from "@rein/controller";

const plugin = {
  name: "echo",
  version: "1.0.0",
  mode: "persistent",
  tools: ["echo"],
  breaker: "closed",
  recentFailures: 0,
  restarts: 0,
  processes: [{ runId: "run_a", state: "running", pid: 42, restarts: 0, inFlight: 0, queued: 0, breaker: "closed" }],
};

describe("the plugin status board", () => {
  it("reads what other processes published and leaves out an entry whose plugins are not plugin statuses", async () => {
    const runtime = await createTestRuntime();
    try {
      const key = `${runtime.config.prefix}:plugin-status`;
      const at = Date.now();
      await runtime.redis.hset(key, "host:1", JSON.stringify({ at, process: "host:1", plugins: [plugin] }));
      await runtime.redis.hset(
        key,
        "host:2",
        JSON.stringify({ at, process: "host:2", plugins: [{ ...plugin, breaker: "melted", processes: "none" }] }),
      );
      const published = await readPluginStatus(runtime);
      expect(published).toEqual([{ at, process: "host:1", plugins: [plugin] }]);
    } finally {
      await runtime.cleanup();
    }
  });
});
