import type { AdapterSettings } from "../adapter-settings.ts";
import type { ModelProvider } from "../model-provider.ts";
import { OpenAIProvider } from "./openai-provider.ts";
import { OpenAIResponsesProvider } from "./responses-provider.ts";

/**
 * The adapter for a provider of kind `openai`: the Responses API for a
 * model whose catalogue entry says `openai-responses`, Chat Completions for
 * one whose entry says `openai-chat`. A model the catalogue does not know
 * (its family patterns cover OpenAI's current lines) gets Chat Completions:
 * with no entry Rein knows no effort and no reasoning to carry, so the
 * Responses API would add nothing, while Chat Completions is what every
 * OpenAI-shaped endpoint a `baseURL` may point at (gateways, proxies, fine
 * tunes of chat models) serves. A Responses-only model sent there fails at
 * its first call with OpenAI's own 404 naming /v1/responses, and one
 * catalogue entry fixes it.
 */
export function openAIProviderFor(settings: AdapterSettings): ModelProvider {
  if (settings.entry?.api === "openai-responses") return new OpenAIResponsesProvider(settings);
  return new OpenAIProvider({ ...settings, kind: "openai" });
}
