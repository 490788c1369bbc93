import { describe, expect, it } from "vitest";
import { anthropicModels } from "../src/catalogue/anthropic-models.ts";
import { modelEntryFor } from "../src/catalogue/model-catalogue.ts";
import { ModelEntry } from "../src/catalogue/model-entry.ts";
import { openAIModels } from "../src/catalogue/openai-models.ts";
import { recommendedModelFor } from "../src/catalogue/recommended-models.ts";
import { RetiredModel, retiredModelFor, retiredModels } from "../src/catalogue/retired-models.ts";

const entries = [...anthropicModels, ...openAIModels];
const listed = entries.filter((entry) => !entry.id.includes("*"));

describe("the model catalogue's data", () => {
  it("is one valid entry per model, each saying where its facts were read and when", () => {
    for (const entry of entries) {
      expect(() => ModelEntry.parse(entry), entry.id).not.toThrow();
      expect(entry.source, entry.id).toMatch(/read 20\d\d-\d\d-\d\d/);
      expect(entry.defaultMaxTokens, entry.id).toBeLessThanOrEqual(entry.maxOutputTokens);
      if (entry.thinking.defaultEffort) expect(entry.thinking.efforts, entry.id).toContain(entry.thinking.defaultEffort);
    }
    for (const provider of ["anthropic", "openai"] as const) {
      const ids = entries.filter((entry) => entry.provider === provider).map((entry) => entry.id);
      expect(new Set(ids).size, provider).toBe(ids.length);
    }
    for (const retired of retiredModels) expect(() => RetiredModel.parse(retired), retired.id).not.toThrow();
  });

  it("prices every listed model; only family patterns, whose price nobody knows yet, go without", () => {
    const codex = "gpt-*-codex*";
    expect(listed.filter((entry) => !entry.price).map((entry) => entry.id)).toEqual([]);
    expect(entries.filter((entry) => entry.id.includes("*") && entry.price).map((entry) => entry.id)).toEqual([]);
    expect(modelEntryFor("openai", "gpt-5-codex")?.id).toBe(codex);
  });

  it("says what current Claude models refuse: forced tools and every sampling parameter; older ones that still allow forcing say so", () => {
    for (const id of ["claude-sonnet-5-5", "claude-opus-5-5", "claude-fable-5-2"]) {
      expect(modelEntryFor("anthropic", id)).toMatchObject({
        api: "anthropic-messages",
        structuredOutput: "output_config",
        forcedToolUse: false,
        sampling: [],
      });
    }
    // Sampling is refused on every model by API version 2026-10-21 (https://platform.claude.com/docs/en/api/versioning), forcing a tool is not.
    expect(modelEntryFor("anthropic", "claude-haiku-4-5")).toMatchObject({ forcedToolUse: true, sampling: [], thinking: { efforts: [] } });
    expect(modelEntryFor("anthropic", "claude-opus-5")).toMatchObject({ forcedToolUse: true, sampling: [] });
    expect(modelEntryFor("anthropic", "claude-opus-5-5")?.thinking).toEqual({
      mode: "adaptive",
      efforts: ["low", "medium", "high", "xhigh", "max"],
      defaultEffort: "medium",
    });
  });

  it("puts OpenAI's reasoning families on the Responses API and GPT-4.1 / 4o on Chat Completions", () => {
    for (const id of ["gpt-6.2-sol", "gpt-6-luna", "gpt-6.2-astra", "gpt-5.5-pro", "gpt-5-codex"])
      expect(modelEntryFor("openai", id)?.api, id).toBe("openai-responses");
    for (const id of ["gpt-4.1", "gpt-4o-mini"])
      expect(modelEntryFor("openai", id)).toMatchObject({ api: "openai-chat", sampling: ["temperature", "top_p"], retires: "2027-01-14" });
    // GPT-6 Sol takes sampling only at effort none; 6.1 and 6.2 Sol refuse none altogether.
    expect(modelEntryFor("openai", "gpt-6-sol")).toMatchObject({ sampling: [], samplingWhenEffortNone: ["temperature", "top_p"] });
    expect(modelEntryFor("openai", "gpt-6.2-sol")?.thinking.efforts).not.toContain("none");
  });
});

describe("finding a model's entry", () => {
  it("finds dated snapshots and aliases under their base model", () => {
    expect(modelEntryFor("anthropic", "claude-haiku-4-5-20251001")?.id).toBe("claude-haiku-4-5");
    expect(modelEntryFor("anthropic", "claude-opus-4-5-20251101")?.retires).toBe("2027-01-22");
    expect(modelEntryFor("openai", "gpt-4o-2024-08-06")?.id).toBe("gpt-4o");
  });

  it("covers ids not listed yet by their family, without a price", () => {
    const newer = modelEntryFor("anthropic", "claude-sonnet-5-6");
    expect(newer).toMatchObject({ id: "claude-sonnet-5-*", forcedToolUse: false, sampling: [] });
    expect(newer?.price).toBeUndefined();
    expect(modelEntryFor("openai", "gpt-6.3-sol")?.id).toBe("gpt-6*-sol");
    expect(modelEntryFor("anthropic", "claude-sonnet-6")).toBeUndefined();
  });

  it("knows nothing of models compatible servers serve", () => {
    expect(modelEntryFor("openai-compatible", "gpt-6.2-sol")).toBeUndefined();
    expect(modelEntryFor("scripted", "scripted-1")).toBeUndefined();
  });

  it("holds retired models apart from usable ones, each with the model to use instead", () => {
    expect(retiredModelFor("anthropic", "claude-sonnet-4-5-20250929")).toMatchObject({
      retired: "2026-11-30",
      successor: "claude-sonnet-5-5",
    });
    expect(retiredModelFor("openai", "o4-mini")).toMatchObject({ retired: "2026-10-23" });
    expect(modelEntryFor("anthropic", "claude-sonnet-4-5")).toBeUndefined();
    expect(modelEntryFor("openai", "o4-mini")).toBeUndefined();
    for (const retired of retiredModels) {
      expect(modelEntryFor(retired.provider, retired.successor)?.status, `${retired.id} → ${retired.successor}`).toBe("current");
    }
  });

  it("recommends a current model of each provider", () => {
    expect(modelEntryFor("anthropic", recommendedModelFor("anthropic"))).toMatchObject({ id: "claude-sonnet-5-5", status: "current" });
    expect(modelEntryFor("openai", recommendedModelFor("openai"))).toMatchObject({ id: "gpt-6.2-sol", status: "current" });
    expect(recommendedModelFor("openai-compatible")).toBeUndefined();
  });
});
