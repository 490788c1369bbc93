import { describe, expect, it } from "vitest";
import { StepBudget } from "@rein/contracts";
import { assertAttenuated } from "../../src/index.ts";
import type { PacketBounds } from "../../src/packets/attenuation.ts";

const budget = StepBudget.parse({ maxTurns: 10, maxToolCalls: 20, maxTokens: 50_000, maxMs: 60_000 });
const bounds: PacketBounds = {
  surface: [
    { name: "read_file", scope: { paths: ["src/**"] } },
    { name: "run_command", scope: { commands: ["node"] } },
    { name: "http_request", scope: { hosts: ["*.example.com"] } },
  ],
  budget,
  maxDepth: 2,
};

const child = (overrides: Partial<Parameters<typeof assertAttenuated>[0]> = {}) => ({
  surface: [{ name: "read_file", scope: { paths: ["src/lib/**"] } }],
  budget: { ...budget, maxTurns: 4 },
  depth: 1,
  ...overrides,
});

describe("attenuation", () => {
  it("accepts a narrower surface, scope and budget", () => {
    expect(() => assertAttenuated(child(), bounds)).not.toThrow();
    expect(() =>
      assertAttenuated(child({ surface: [{ name: "http_request", scope: { hosts: ["api.example.com"] } }] }), bounds),
    ).not.toThrow();
  });

  it("refuses a widened surface, naming the tool", () => {
    expect(() => assertAttenuated(child({ surface: [{ name: "write_file", scope: {} }] }), bounds)).toThrow(
      /attenuation broken: surface: tool write_file is not on the parent's surface/,
    );
  });

  it("refuses a widened path scope", () => {
    expect(() => assertAttenuated(child({ surface: [{ name: "read_file", scope: { paths: ["**"] } }] }), bounds)).toThrow(
      /scope: read_file\.paths \*\* is outside the parent's src\/\*\*/,
    );
    expect(() => assertAttenuated(child({ surface: [{ name: "read_file", scope: { paths: ["src/../etc/**"] } }] }), bounds)).toThrow(
      /scope/,
    );
  });

  it("compares patterns as patterns: src/* never contains src/**", () => {
    const top = { ...bounds, surface: [{ name: "read_file", scope: { paths: ["src/*"] } }] };
    expect(() => assertAttenuated(child({ surface: [{ name: "read_file", scope: { paths: ["src/**"] } }] }), top)).toThrow(
      /read_file\.paths src\/\*\* is outside the parent's src\/\*/,
    );
    expect(() => assertAttenuated(child({ surface: [{ name: "read_file", scope: { paths: ["src/*/x"] } }] }), top)).toThrow(/outside/);
    expect(() => assertAttenuated(child({ surface: [{ name: "read_file", scope: { paths: ["src/*.ts"] } }] }), top)).not.toThrow();
    const hosts = { ...bounds, surface: [{ name: "http_request", scope: { hosts: ["a?.example.com:443"] } }] };
    expect(() => assertAttenuated(child({ surface: [{ name: "http_request", scope: { hosts: ["a*.example.com:443"] } }] }), hosts)).toThrow(
      /outside/,
    );
  });

  it("refuses a scope left unrestricted where the parent restricts it", () => {
    expect(() => assertAttenuated(child({ surface: [{ name: "run_command", scope: {} }] }), bounds)).toThrow(
      /scope: run_command\.commands is unrestricted/,
    );
  });

  it("refuses another executable or host", () => {
    expect(() => assertAttenuated(child({ surface: [{ name: "run_command", scope: { commands: ["bash"] } }] }), bounds)).toThrow(
      /commands bash is outside/,
    );
    expect(() => assertAttenuated(child({ surface: [{ name: "http_request", scope: { hosts: ["evil.com"] } }] }), bounds)).toThrow(
      /hosts evil\.com is outside/,
    );
  });

  it("refuses an inflated budget, naming the limit", () => {
    expect(() => assertAttenuated(child({ budget: { ...budget, maxTokens: 50_001 } }), bounds)).toThrow(
      /budget: maxTokens 50001 is more than the parent's remaining 50000/,
    );
  });

  it("refuses an over-deep delegation", () => {
    expect(() => assertAttenuated(child({ depth: 3 }), bounds)).toThrow(/depth: delegation depth 3 is over the maximum of 2/);
  });
});
