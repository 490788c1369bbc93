// @rein/models/testing, for other packages' tests: local HTTP servers speaking each provider's
// wire format (strict emulators of the Anthropic and OpenAI APIs, scripted wire servers), and
// model fakes (a counting provider, planner scripts).
export { type FakeReply, type FakeResponder, FakeServer, type RecordedRequest, recordingRetry } from "./fake-model-server.ts";
export { anthropicWireReply } from "./anthropic-wire.ts";
export { openAIWireReply, type OpenAIWireOptions } from "./openai-wire.ts";
export type { WireReply } from "./wire-reply.ts";
export { anthropicWireFailure, cutStream, openAIWireFailure, type WireFailure } from "./wire-failures.ts";
export { EmulatedRateLimit, type EmulatedRateLimitOptions } from "./rate-limited-responder.ts";
export { type ScriptedWireServerOptions, startScriptedWireServer, type WireFormat } from "./scripted-wire-server.ts";
export { OpenAIEmulator, type OpenAIEmulatorOptions } from "./openai-emulator/openai-emulator.ts";
export type { OpenAIEmulatorBrain, OpenAIEmulatorReply, OpenAIEmulatorView } from "./openai-emulator/emulator-brain.ts";
export { openAIBrainOfProvider, type OpenAIProviderBrainOptions } from "./openai-emulator/provider-brain.ts";
export { type OpenAIEmulatedModel, openAIEmulatedModels } from "./openai-emulator/emulated-models.ts";
export { OpenAIEmulatorRefusal, openAIDocs, type OpenAIRecordedRefusal } from "./openai-emulator/emulator-refusal.ts";
export { openAIResponseFailedStream, openAIResponsesWireFailure } from "./openai-emulator/responses-failures.ts";
export {
  type AnthropicBrain,
  type AnthropicEmulatorOptions,
  AnthropicMessagesEmulator,
  type EmulatedBlock,
  type EmulatedReply,
  type EmulatedRequest,
  type EmulatorExchange,
  type EmulatorRefusal,
  startAnthropicEmulator,
} from "./anthropic-emulator/anthropic-messages-emulator.ts";
export { brainOfProvider, type ProviderBrainOptions } from "./anthropic-emulator/anthropic-emulator-brains.ts";
export { type EmulatedModel, emulatedModels } from "./anthropic-emulator/anthropic-emulated-models.ts";
export { installedSdkModelData, type SdkModelData, shutDownBy } from "./sdk-model-data.ts";
export { countingProvider } from "./counting-provider.ts";
export { oneStepPlanner, plannerOfSteps } from "./planner-script.ts";
