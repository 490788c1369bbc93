import { z } from "zod";
import type { ProviderKind } from "../model-config.ts";

/** A model its provider no longer serves: requests to it fail (404), so config naming it is refused at startup. */
export const RetiredModel = z.object({
  id: z.string().min(1),
  provider: z.enum(["anthropic", "openai"]),
  /** The day requests began to fail (YYYY-MM-DD). */
  retired: z.iso.date(),
  /** The catalogue model to use instead. */
  successor: z.string().min(1),
  source: z.string().min(1),
});
export type RetiredModel = z.infer<typeof RetiredModel>;

const anthropicSource =
  "platform.claude.com/docs/en/about-claude/model-deprecations and the @anthropic-ai/sdk deprecated-models data, read 2026-12-03";
const openAISource =
  "developers.openai.com/api/docs/deprecations and the openai SDK's announced shutdown dates (resources/shared.ts), read 2026-12-03";

const anthropic = (retired: string, successor: string, ids: string[]): RetiredModel[] =>
  ids.map((id) => ({ id, provider: "anthropic", retired, successor, source: anthropicSource }));
const openai = (retired: string, successor: string, ids: string[]): RetiredModel[] =>
  ids.map((id) => ({ id, provider: "openai", retired, successor, source: openAISource }));

/** Retired ids, newest first; a dated snapshot of one (`claude-sonnet-4-5-20250929`) is retired with it. */
export const retiredModels: readonly RetiredModel[] = [
  ...anthropic("2026-11-30", "claude-sonnet-5-5", ["claude-sonnet-4-5"]),
  ...anthropic("2026-08-05", "claude-opus-5-5", ["claude-opus-4-1"]),
  ...anthropic("2026-06-30", "claude-mythos-5-2", ["claude-mythos-preview"]),
  ...anthropic("2026-06-15", "claude-sonnet-5-5", ["claude-sonnet-4-0", "claude-sonnet-4"]),
  ...anthropic("2026-06-15", "claude-opus-5-5", ["claude-opus-4-0", "claude-opus-4"]),
  ...anthropic("2026-02-19", "claude-sonnet-5-5", ["claude-3-7-sonnet"]),
  ...anthropic("2025-10-28", "claude-sonnet-5-5", ["claude-3-5-sonnet"]),
  ...openai("2026-10-23", "gpt-6-luna", ["gpt-4.1-nano", "gpt-3.5-turbo", "gpt-3.5-turbo-0125"]),
  ...openai("2026-10-23", "gpt-6.2-sol", [
    "o4-mini",
    "o3-mini",
    "o1",
    "o1-pro",
    "gpt-4o-2024-05-13",
    "gpt-4-turbo",
    "gpt-4-1106-preview",
    "gpt-4",
    "gpt-4-0613",
  ]),
  ...openai("2026-09-28", "gpt-6-luna", ["gpt-3.5-turbo-1106"]),
  ...openai("2026-08-10", "gpt-6.2-sol", ["gpt-5.3-chat-latest", "gpt-5.2-chat-latest"]),
  ...openai("2026-07-23", "gpt-6.2-sol", [
    "gpt-5.1-codex",
    "gpt-5.1-chat-latest",
    "gpt-5-chat-latest",
    "gpt-4o-search-preview",
    "gpt-4o-mini-search-preview",
  ]),
  ...openai("2026-05-07", "gpt-6.2-sol", ["gpt-4o-audio-preview", "gpt-4o-mini-audio-preview"]),
  ...openai("2026-03-26", "gpt-6.2-sol", ["gpt-4-0125-preview", "gpt-4-turbo-preview", "gpt-4-0314"]),
  ...openai("2026-02-17", "gpt-6.2-sol", ["chatgpt-4o-latest"]),
  ...openai("2026-02-12", "gpt-6.2-sol", ["codex-mini-latest"]),
  ...openai("2025-10-27", "gpt-6.2-sol", ["o1-mini"]),
  ...openai("2025-10-10", "gpt-6.2-sol", ["gpt-4o-audio-preview-2024-10-01"]),
  ...openai("2025-07-28", "gpt-6.2-sol", ["o1-preview"]),
  ...openai("2025-06-06", "gpt-6.2-sol", ["gpt-4-32k", "gpt-4-32k-0314", "gpt-4-32k-0613"]),
  ...openai("2024-12-06", "gpt-6.2-sol", ["gpt-4-vision-preview"]),
  ...openai("2024-09-13", "gpt-6-luna", ["gpt-3.5-turbo-16k", "gpt-3.5-turbo-0301", "gpt-3.5-turbo-0613", "gpt-3.5-turbo-16k-0613"]),
];

/** The retired model `model` is (or is a dated snapshot of), for a provider of `kind`. */
export function retiredModelFor(kind: string, model: string): RetiredModel | undefined {
  if (kind !== ("anthropic" satisfies ProviderKind) && kind !== ("openai" satisfies ProviderKind)) return undefined;
  const base = model.replace(/-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/, "");
  return retiredModels.find((entry) => entry.provider === kind && (entry.id === model || entry.id === base));
}
