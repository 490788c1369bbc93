export type {
  CompleteOptions,
  ContentBlock,
  ModelMessage,
  ModelProvider,
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
  ModelToolSchema,
  StopReason,
  StructuredOutputRequest,
} from "./model-provider.ts";
export { textOf, toolCallsOf } from "./model-provider.ts";
export type { AdapterSettings } from "./adapter-settings.ts";
export { AnthropicProvider } from "./anthropic/anthropic-provider.ts";
export { OpenAIProvider, type OpenAIProviderSettings } from "./openai/openai-provider.ts";
export { OpenAIResponsesProvider } from "./openai-responses/responses-provider.ts";
export { openAIProviderFor } from "./openai-responses/openai-api-choice.ts";
export type { StructuredOutputMode } from "./openai/openai-request.ts";
export { RecordedSteps, ReplayProvider, type ReplayOptions, type ReplayRecordings } from "./replay/replay-provider.ts";
export { ScriptedProvider } from "./scripted/scripted-provider.ts";
export { createProvider, type CreateProviderOptions } from "./create-provider.ts";
export { roleMaxTokens } from "./role-max-tokens.ts";
export {
  classifyFailure,
  retryAfterOf,
  type FailureClassification,
  type FailureReason,
  type ProviderFailure,
} from "./errors-classify.ts";
export { backoffDelay, type RetryPolicy } from "./retry.ts";
export { costOf, priceFor, unpricedModels, withCost } from "./pricing.ts";
export { builtinPriceFor } from "./price-table.ts";
export { checkProviderReachable } from "./provider-reachability.ts";
export {
  estimateMessageTokens,
  estimateRequestTokens,
  estimateTextTokens,
  estimateToolTokens,
} from "./token-estimate.ts";
export { isStrictCompatible } from "./structured-output.ts";
export { parseJsonText } from "./json-from-model-text.ts";
export { jsonSchemaOf } from "@rein/contracts";
export { toolBoundary, type ToolBoundary, type ToolSchemaReplaced } from "./tool-boundary/tool-boundary.ts";
export { PROVIDER_TOOL_NAME, ProviderToolNames } from "./tool-boundary/provider-tool-names.ts";
export { PERMISSIVE_TOOL_SCHEMA, type ProviderToolSchema, providerToolSchema } from "./tool-boundary/provider-tool-schema.ts";
export { modelEntryFor } from "./catalogue/model-catalogue.ts";
export { Effort, ModelEntry, SamplingParameter, StructuredOutputMethod } from "./catalogue/model-entry.ts";
export { RetiredModel, retiredModelFor, retiredModels } from "./catalogue/retired-models.ts";
export { CATALOGUE_READ_ON, recommendedModelFor } from "./catalogue/recommended-models.ts";
export { acceptedSampling, assertRoleModels, checkRoleModel, checkRoleModels, ModelConfigProblem } from "./catalogue/role-model-check.ts";
export { checkModelLive, type LiveCheckFailure, type LiveCheckOptions, type LiveModelCheck } from "./model-live-check.ts";
