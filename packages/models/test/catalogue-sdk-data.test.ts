import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { anthropicModels } from "../src/catalogue/anthropic-models.ts";
import { modelEntryFor } from "../src/catalogue/model-catalogue.ts";
import { openAIModels } from "../src/catalogue/openai-models.ts";
import { recommendedModelFor } from "../src/catalogue/recommended-models.ts";
import { retiredModelFor } from "../src/catalogue/retired-models.ts";
import { checkRoleModel } from "../src/catalogue/role-model-check.ts";
import { installedSdkModelData, shutDownBy } from "../src/testing/index.ts";

/**
 * The installed SDKs ship their provider's own retirement data
 * (@anthropic-ai/sdk: internal/data/deprecated-models; openai:
 * resources/shared, "Announced shutdown date" per model). These tests read
 * it from the installed packages, with today's date, so a default, an
 * example or a catalogue entry called current fails here the day its
 * provider stops serving it, and an SDK upgrade that announces a date is
 * compared with the catalogue's.
 */
const today = new Date().toISOString().slice(0, 10);
const sdk = { anthropic: installedSdkModelData("anthropic"), openai: installedSdkModelData("openai") };
const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

describe("the catalogue against the installed SDKs' own model data", () => {
  it("reads both SDKs' data from the installed packages", () => {
    expect(sdk.anthropic.files.every((file) => file.includes("node_modules"))).toBe(true);
    expect(sdk.anthropic.shutdowns.get("claude-sonnet-4-5")).toBe("2026-11-30");
    expect(sdk.openai.shutdowns.get("gpt-4.1-mini")).toBe("2027-01-14");
    expect(sdk.openai.shutdowns.get("o4-mini")).toBe("2026-10-23");
  });

  for (const provider of ["anthropic", "openai"] as const) {
    it(`${provider}: the zero-config default is a model the SDK lists and has not shut down`, () => {
      const model = recommendedModelFor(provider);
      expect(sdk[provider].models.has(model), `${model} is not in the SDK's model list`).toBe(true);
      expect(shutDownBy(sdk[provider], model, today), `${model} is shut down`).toBeUndefined();
    });
  }

  it("calls current only models the SDKs list and have not shut down", () => {
    for (const entry of [...anthropicModels, ...openAIModels].filter(
      (candidate) => candidate.status === "current" && !candidate.id.includes("*"),
    )) {
      const data = sdk[entry.provider];
      expect(data.models.has(entry.id), `${entry.id} is not in the ${entry.provider} SDK's model list`).toBe(true);
      expect(shutDownBy(data, entry.id, today), `${entry.id} is current but shut down`).toBeUndefined();
    }
  });

  it("refuses at startup every model the SDKs say is shut down by today", () => {
    for (const provider of ["anthropic", "openai"] as const) {
      for (const [model] of [...sdk[provider].shutdowns].filter(([id]) => shutDownBy(sdk[provider], id, today))) {
        const problems = checkRoleModel("worker", { provider, model, timeoutMs: 1000, contextTokens: 1000 }, provider, today);
        expect(
          problems.map((problem) => problem.code),
          model,
        ).toEqual(["model_retired"]);
      }
    }
  });

  it("carries the SDKs' announced date for every listed model they will shut down later", () => {
    for (const provider of ["anthropic", "openai"] as const) {
      for (const [model, day] of sdk[provider].shutdowns) {
        if (day <= today || retiredModelFor(provider, model)) continue;
        const entry = modelEntryFor(provider, model);
        if (!entry || entry.id.includes("*")) continue;
        expect(entry.retires, `${model} (${entry.id})`).toBe(day);
      }
    }
  });

  it("names no shut-down model in the README, the docs or the examples", () => {
    const files = [
      join(repoRoot, "README.md"),
      ...jsonAndMarkdownUnder(join(repoRoot, "docs")),
      ...jsonAndMarkdownUnder(join(repoRoot, "examples")),
    ];
    const named = files.flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/"model":\s*"([^"]+)"/g)].map((match) => ({ file, model: match[1] as string })),
    );
    expect(named.length).toBeGreaterThan(0);
    for (const { file, model } of named) {
      for (const provider of ["anthropic", "openai"] as const) {
        expect(shutDownBy(sdk[provider], model, today), `${file} names ${model}`).toBeUndefined();
        expect(retiredModelFor(provider, model), `${file} names ${model}`).toBeUndefined();
      }
    }
  });
});

function jsonAndMarkdownUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(json|md)$/.test(entry.name) && !(entry.parentPath ?? "").includes("node_modules"))
    .map((entry) => join(entry.parentPath ?? dir, entry.name));
}
