import { describe, expect, it } from "vitest";
import { loadConfig } from "@rein/runtime";
import { installedSdkModelData, shutDownBy } from "@rein/models/testing";
import { providerFromEnv } from "../src/cli/provider-from-env.ts";
import { cliEnv, rein } from "./support/cli.ts";

const today = new Date().toISOString().slice(0, 10);

describe("rein run without a config file", () => {
  it("stays offline when no API key is set", () => {
    expect(providerFromEnv({})).toBeUndefined();
  });

  it("uses Anthropic for every role when its key is set, naming the variable, never the key", () => {
    const chosen = providerFromEnv({ ANTHROPIC_API_KEY: "sk-ant-test-123", REIN_MODEL: "claude-opus-5-5" });
    const config = loadConfig({ env: {}, overrides: chosen?.overrides });
    expect(config.providers.anthropic).toMatchObject({ kind: "anthropic", apiKeyEnv: "ANTHROPIC_API_KEY" });
    for (const role of ["planner", "worker", "evaluator", "judge"] as const)
      expect(config.roles[role]).toMatchObject({ provider: "anthropic", model: "claude-opus-5-5" });
    expect(JSON.stringify(chosen)).not.toContain("sk-ant-test-123");
  });

  it("falls back to OpenAI when only its key is set", () => {
    expect(providerFromEnv({ OPENAI_API_KEY: "sk-test" })?.overrides.roles?.worker).toEqual({ provider: "openai", model: "gpt-6.2-sol" });
  });

  // The installed SDK's own model list and shutdown dates decide what "current" means, read on the day the test runs.
  for (const [provider, variable] of [
    ["anthropic", "ANTHROPIC_API_KEY"],
    ["openai", "OPENAI_API_KEY"],
  ] as const) {
    it(`with only ${variable} set, rein models shows a model the ${provider} SDK lists and still serves`, async () => {
      const result = await rein(["models"], cliEnv({ [variable]: "sk-not-real" }));
      expect(result.code, result.stderr).toBe(0);
      const model = new RegExp(`^worker\\s+${provider}\\s+${provider}\\s+(\\S+)$`, "m").exec(result.stdout)?.[1] as string;
      const sdk = installedSdkModelData(provider);
      expect(sdk.models.has(model), `${model} is not in the ${provider} SDK's model list`).toBe(true);
      expect(shutDownBy(sdk, model, today), `${model} is shut down`).toBeUndefined();
      expect(result.stdout).toMatch(/^ {2}catalogue {5}current; /m);
    }, 60_000);
  }
});
