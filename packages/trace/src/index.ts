// What a run records: one catalogue of trace kinds, each with its zod payload schema,
// the typed events read back through it, and the prompt copies a model call stores.
// (docs/trace-events.md is rendered from the catalogue by trace-events-doc.ts, npm run docs:trace-events.)
export {
  asCheckEvent,
  CHECK_PREFIX,
  type CallTraceKind,
  isTraceKind,
  type TraceCatalogue,
  traceCatalogue,
  type TraceEventBody,
  type TraceEventInput,
  type TraceEventInputOf,
  traceEventInput,
  type TraceKind,
  type TracePayload,
  type TracePayloadInput,
} from "./trace-catalogue.ts";
export type { TraceKindSpec } from "./catalogue/trace-kind.ts";
export {
  type CallTraceEvent,
  findTraceEvent,
  isCallTraceEvent,
  isTraceEventOf,
  type TraceEventOf,
  type TypedTraceEvent,
  typedTraceEvent,
} from "./typed-trace-event.ts";
export type { TraceWriter } from "./trace-writer.ts";
export {
  assemblePrompt,
  expandPromptCopy,
  type PromptBlobWriter,
  PromptChain,
  PromptCopy,
  type PromptParts,
  promptHash,
  splitPrompt,
  storePromptCopy,
} from "./prompt-copy.ts";
