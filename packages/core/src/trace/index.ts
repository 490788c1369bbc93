export { TraceLog, type TraceLogOptions } from "./trace-log.ts";
export { TraceBuffer } from "./trace-buffer.ts";
export type { TraceWriter } from "./trace-log.ts";
export { PromptChain, PromptCopy, assemblePrompt, expandPromptCopy, promptHash, splitPrompt, storePromptCopy, type PromptParts } from "./prompt-copy.ts";
