import type { ProviderKind } from "../model-config.ts";
import { anthropicModels } from "./anthropic-models.ts";
import type { ModelEntry } from "./model-entry.ts";
import { openAIModels } from "./openai-models.ts";

const byProvider: Partial<Record<ProviderKind, readonly ModelEntry[]>> = { anthropic: anthropicModels, openai: openAIModels };

/**
 * The catalogue entry for `model` served by a provider of `kind`: the exact
 * id, else a dated snapshot's base id (`claude-sonnet-4-5-20250929`,
 * `gpt-4.1-2025-04-14`), else the first family entry whose pattern matches.
 * Undefined for kinds whose models only the operator knows.
 */
export function modelEntryFor(kind: string, model: string): ModelEntry | undefined {
  const entries = byProvider[kind as ProviderKind];
  if (!entries) return undefined;
  const base = model.replace(/-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/, "");
  return (
    entries.find((entry) => entry.id === model) ??
    entries.find((entry) => entry.id === base) ??
    entries.find((entry) => entry.id.includes("*") && patternOf(entry.id).test(model))
  );
}

const patternOf = (id: string): RegExp =>
  new RegExp(
    `^${id
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
