export { createTestRuntime, TEST_REDIS_URL, type TestRuntime } from "./test-runtime.ts";
export { type FakeReply, type FakeResponder, FakeServer, type RecordedRequest, recordingRetry } from "./fake-model-server.ts";
export { anthropicWireReply } from "./anthropic-wire.ts";
export { openAIWireReply, type OpenAIWireOptions } from "./openai-wire.ts";
export { OpenAIEmulator, type OpenAIEmulatorOptions } from "./openai-emulator/openai-emulator.ts";
export type { OpenAIEmulatorBrain, OpenAIEmulatorReply, OpenAIEmulatorView } from "./openai-emulator/emulator-brain.ts";
export { openAIBrainOfProvider, type OpenAIProviderBrainOptions } from "./openai-emulator/provider-brain.ts";
export { openAIEmulatedModels, type OpenAIEmulatedModel } from "./openai-emulator/emulated-models.ts";
export { OpenAIEmulatorRefusal, openAIDocs, type OpenAIRecordedRefusal } from "./openai-emulator/emulator-refusal.ts";
export { openAIResponseFailedStream, openAIResponsesWireFailure } from "./openai-emulator/responses-failures.ts";
export { type ScriptedWireServerOptions, startScriptedWireServer, type WireFormat } from "./scripted-wire-server.ts";
export type { WireReply } from "./wire-reply.ts";
export { anthropicWireFailure, cutStream, openAIWireFailure, type WireFailure } from "./wire-failures.ts";
export { INJECTIONS, SECRET, secretLeaks, splitSecretForms } from "@rein/guard/testing";
export { type TraceEnvelope, traceEventOf } from "./trace-event-of.ts";
export { echoConversation, echoTool } from "./echo-tool.ts";
export { countingProvider } from "./counting-provider.ts";
export { recordSentControl } from "./sent-control.ts";
export { until } from "@rein/contracts/testing";
export { type ConsumerFixture, consumerPerTest, type TestHooks, testRuntimePerTest } from "./per-test.ts";
export { fixtureAround, type HookRegistrar, liveView } from "@rein/contracts/testing";
export { type LapsingLock, lapsingLock } from "./lapsing-lock.ts";
export { warningsLogged } from "./warnings-logged.ts";
export { toolCallRecord } from "@rein/contracts/testing";
export { oneStepPlanner, plannerOfSteps } from "./planner-script.ts";
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
} from "./emulators/anthropic-messages-emulator.ts";
export { brainOfProvider, type ProviderBrainOptions } from "./emulators/anthropic-emulator-brains.ts";
export { type EmulatedModel, emulatedModels } from "./emulators/anthropic-emulated-models.ts";
export { installedSdkModelData, type SdkModelData, shutDownBy } from "./sdk-model-data.ts";
