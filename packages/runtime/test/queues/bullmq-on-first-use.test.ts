import { describe, expect, it } from "vitest";
import { packagesLoadedBy } from "@rein/contracts/testing";

describe("importing @rein/runtime", () => {
  it("loads neither BullMQ, a model SDK, the MCP SDK nor OpenTelemetry: a process that only reads runs (rein status) never needs them", () => {
    const loaded = packagesLoadedBy("@rein/runtime", import.meta.dirname);
    expect(loaded).toContain("ioredis");
    const heavy = loaded.filter((name) =>
      /^(bullmq|bullmq-otel|@anthropic-ai\/sdk|openai|@modelcontextprotocol\/sdk|@opentelemetry\/.*)$/.test(name),
    );
    expect(heavy).toEqual([]);
  });
});
