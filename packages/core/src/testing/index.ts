export { createTestRuntime, TEST_REDIS_URL, type TestRuntime } from "./test-runtime.ts";
export { type FakeReply, type FakeResponder, FakeServer, type RecordedRequest, recordingRetry } from "./fake-model-server.ts";
export { anthropicWireReply } from "./anthropic-wire.ts";
export { openAIWireReply, type OpenAIWireOptions } from "./openai-wire.ts";
export { type ScriptedWireServerOptions, startScriptedWireServer, type WireFormat } from "./scripted-wire-server.ts";
export type { WireReply } from "./wire-reply.ts";
export { anthropicWireFailure, cutStream, openAIWireFailure, type WireFailure } from "./wire-failures.ts";
export { INJECTIONS, SECRET, secretLeaks, splitSecretForms } from "./injection-corpus.ts";
export { type TraceEnvelope, traceEventOf } from "./trace-event-of.ts";
