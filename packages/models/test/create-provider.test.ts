import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ProviderConfig, RoleModelConfig } from "../src/model-config.ts";
import { ReinError } from "@rein/contracts";
import { createProvider } from "../src/create-provider.ts";
import type { ModelResponse } from "../src/model-provider.ts";

const role = RoleModelConfig.parse({ provider: "main", model: "model-x", maxTokens: 300 });

describe("createProvider", () => {
  it("builds each HTTP kind with the role's model", () => {
    const anthropic = createProvider("claude", ProviderConfig.parse({ kind: "anthropic", apiKeyEnv: "MY_ANTHROPIC" }), role, {
      MY_ANTHROPIC: "k1",
    });
    const openai = createProvider("gpt", ProviderConfig.parse({ kind: "openai", apiKeyEnv: "MY_OPENAI" }), role, { MY_OPENAI: "k2" });
    const local = createProvider(
      "local-ollama",
      ProviderConfig.parse({ kind: "openai-compatible", baseURL: "http://127.0.0.1:11434/v1" }),
      role,
      {},
    );
    expect([anthropic.kind, anthropic.name, anthropic.model]).toEqual(["anthropic", "claude", "model-x"]);
    expect([openai.kind, openai.name]).toEqual(["openai", "gpt"]);
    expect([local.kind, local.name]).toEqual(["openai-compatible", "local-ollama"]);
  });

  it("names the provider and the variable, never a value, when a key is missing", () => {
    const attempt = () =>
      createProvider("claude", ProviderConfig.parse({ kind: "anthropic", apiKeyEnv: "REIN_CLAUDE_KEY" }), role, { OTHER: "x" });
    expect(attempt).toThrow(ReinError);
    try {
      attempt();
    } catch (error) {
      expect(ReinError.hasCode(error, "config_invalid")).toBe(true);
      expect((error as ReinError).message).toContain('"claude"');
      expect((error as ReinError).message).toContain("REIN_CLAUDE_KEY");
    }
    expect(() => createProvider("gpt", ProviderConfig.parse({ kind: "openai" }), role, {})).toThrow(/OPENAI_API_KEY/);
  });

  it("loads a scripted provider from its script file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "rein-models-"));
    const script = join(dir, "script.json");
    writeFileSync(script, JSON.stringify({ worker: [{ turns: [{ text: "scripted hello" }] }] }));
    const provider = createProvider("scripted", ProviderConfig.parse({ kind: "scripted", script }), role, {});
    const response = await provider.complete({
      role: "worker",
      system: "",
      messages: [{ role: "user", content: [{ type: "text", text: "go" }] }],
    });
    expect(response.content).toEqual([{ type: "text", text: "scripted hello" }]);
    expect(provider.name).toBe("scripted");
  });

  it("builds a replay provider from recordings or fails without them", async () => {
    const recorded: ModelResponse = {
      content: [{ type: "text", text: "recorded" }],
      stopReason: "end_turn",
      usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
      provider: "anthropic",
      model: "claude-x",
      retries: 0,
    };
    const provider = createProvider("replay", ProviderConfig.parse({ kind: "replay" }), role, {}, { recordings: [recorded] });
    expect((await provider.complete({ role: "judge", system: "", messages: [] })).content).toEqual(recorded.content);
    expect(() => createProvider("replay", ProviderConfig.parse({ kind: "replay" }), role, {})).toThrow(/recordings/);
  });
});
