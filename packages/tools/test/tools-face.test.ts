import { describe, expect, it } from "vitest";
import { packagesLoadedBy } from "@rein/contracts/testing";

describe("importing @rein/tools", () => {
  it("loads no queue, Redis client, model SDK, MCP SDK or OpenTelemetry: a tool author's process carries only the tool kit", () => {
    const loaded = packagesLoadedBy("@rein/tools", import.meta.dirname);
    expect(loaded).toContain("zod");
    const heavy = loaded.filter((name) =>
      /^(bullmq|ioredis|@anthropic-ai\/sdk|openai|@modelcontextprotocol\/sdk|@opentelemetry\/.*)$/.test(name),
    );
    expect(heavy).toEqual([]);
  });
});
