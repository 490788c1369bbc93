// The provider interface every model adapter implements, and what works over any provider:
// retries, prices, the model catalogue, structured output, the tool boundary, traced calls,
// and the scripted and replay providers. The SDK adapters are subpaths, each loading only its
// SDK: @rein/models/anthropic, @rein/models/openai; @rein/models/providers builds any kind from config.
export type { CompleteOptions, ModelProvider, ModelRequest, ModelResponse, ModelStreamEvent, StopReason } from "./model-provider.ts";
export { textOf, toolCallsOf } from "./model-provider.ts";
export { Price, ProviderConfig, ProviderKind, RoleModelConfig } from "./model-config.ts";
export type { AdapterSettings } from "./adapter-settings.ts";
export { type ModelCallTrace, tracedComplete } from "./traced-complete.ts";
export { completeStructured, describeIssues, usageOfFailure } from "./complete-structured.ts";
export { parseJsonText } from "./json-from-model-text.ts";
export { ScriptedProvider } from "./scripted/scripted-provider.ts";
export type { ModelScriptInput, ScriptedConversation } from "./scripted/script.ts";
export { ReplayProvider, type ReplayOptions, type ReplayRecordings } from "./replay/replay-provider.ts";
export { roleMaxTokens } from "./role-max-tokens.ts";
export { classifyFailure } from "./errors-classify.ts";
export { priceFor, unpricedModels } from "./pricing.ts";
export { builtinPriceFor } from "./price-table.ts";
export { checkProviderReachable } from "./provider-reachability.ts";
export { estimateRequestTokens, estimateTextTokens } from "./token-estimate.ts";
export { modelEntryFor } from "./catalogue/model-catalogue.ts";
export { Effort, ModelEntry } from "./catalogue/model-entry.ts";
export { RetiredModel, retiredModelFor } from "./catalogue/retired-models.ts";
export { CATALOGUE_READ_ON, recommendedModelFor } from "./catalogue/recommended-models.ts";
export { acceptedSampling, assertRoleModels, checkRoleModels, ModelConfigProblem } from "./catalogue/role-model-check.ts";
export { checkModelLive, type LiveModelCheck } from "./model-live-check.ts";
