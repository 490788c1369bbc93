import { describe, expect, it } from "vitest";
import { loadConfig } from "@rein/core";
import { providerFromEnv } from "../src/cli/provider-from-env.ts";

describe("rein run without a config file", () => {
  it("stays offline when no API key is set", () => {
    expect(providerFromEnv({})).toBeUndefined();
  });

  it("uses Anthropic for every role when its key is set, naming the variable, never the key", () => {
    const chosen = providerFromEnv({ ANTHROPIC_API_KEY: "sk-ant-test-123", REIN_MODEL: "claude-opus-4" });
    const config = loadConfig({ env: {}, overrides: chosen?.overrides });
    expect(config.providers.anthropic).toMatchObject({ kind: "anthropic", apiKeyEnv: "ANTHROPIC_API_KEY" });
    for (const role of ["planner", "worker", "evaluator", "judge"] as const) expect(config.roles[role]).toMatchObject({ provider: "anthropic", model: "claude-opus-4" });
    expect(JSON.stringify(chosen)).not.toContain("sk-ant-test-123");
  });

  it("falls back to OpenAI when only its key is set", () => {
    expect(providerFromEnv({ OPENAI_API_KEY: "sk-test" })?.overrides.roles?.worker).toEqual({ provider: "openai", model: "gpt-4.1-mini" });
  });
});
