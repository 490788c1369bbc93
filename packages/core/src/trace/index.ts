export { TraceLog, type TraceLogOptions } from "./trace-log.ts";
export { TraceBuffer } from "./trace-buffer.ts";
export type { TraceWriter } from "@rein/trace";
export { PromptChain, PromptCopy, assemblePrompt, expandPromptCopy, promptHash, splitPrompt, storePromptCopy, type PromptBlobWriter, type PromptParts } from "@rein/trace";
export { asCheckEvent, CHECK_PREFIX, isTraceKind, traceCatalogue, type CallTraceKind, type TraceCatalogue, type TraceEventBody, type TraceEventInput, type TraceEventInputOf, type TraceKind, type TracePayload, type TracePayloadInput } from "@rein/trace";
export type { TraceKindSpec } from "@rein/trace";
export { findTraceEvent, isCallTraceEvent, isTraceEventOf, typedTraceEvent, type CallTraceEvent, type TraceEventOf, type TypedTraceEvent } from "@rein/trace";
