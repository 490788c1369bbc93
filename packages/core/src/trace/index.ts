export { TraceLog, type TraceLogOptions } from "./trace-log.ts";
export { TraceBuffer } from "./trace-buffer.ts";
export type { TraceWriter } from "./trace-log.ts";
export { PromptCopy, assemblePrompt, promptHash, splitPrompt, storePromptCopy, type PromptParts } from "./prompt-copy.ts";
