// @rein/models/openai: the Responses and Chat Completions adapters; importing them loads the openai SDK.
export { OpenAIProvider, type OpenAIProviderSettings } from "./openai-provider.ts";
export type { StructuredOutputMode } from "./openai-request.ts";
export { OpenAIResponsesProvider } from "./responses-provider.ts";
export { openAIProviderFor } from "./openai-api-choice.ts";
