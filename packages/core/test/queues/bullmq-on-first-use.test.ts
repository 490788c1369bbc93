import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const CORE = resolve(import.meta.dirname, "../../src/index.ts");

// In a process of its own: this test process has loaded BullMQ already.
const loadedAfterImport = (): { bullmq: boolean; anthropic: boolean; openai: boolean } => {
  const probe = `
    const { createRequire } = await import("node:module");
    await import(${JSON.stringify(CORE)});
    const cache = Object.keys(createRequire(import.meta.url).cache);
    process.stdout.write(JSON.stringify({
      bullmq: cache.some((file) => file.includes("/bullmq/")),
      anthropic: cache.some((file) => file.includes("/@anthropic-ai/sdk/")),
      openai: cache.some((file) => file.includes("/openai/")),
    }));`;
  const output = execFileSync(process.execPath, ["--conditions=@rein/source", "--import", "tsx", "--input-type=module", "-e", probe], { cwd: resolve(import.meta.dirname, "../.."), encoding: "utf8", timeout: 60_000 });
  return JSON.parse(output) as { bullmq: boolean; anthropic: boolean; openai: boolean };
};

describe("importing @rein/core", () => {
  it("loads neither BullMQ nor a model SDK: a process that only reads runs (rein status) never needs them", () => {
    expect(loadedAfterImport()).toEqual({ bullmq: false, anthropic: false, openai: false });
  });
});
