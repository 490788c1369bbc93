export {
  type AnyTool,
  type ApprovalRule,
  type ArtifactWriter,
  defineTool,
  type ToolContext,
  type ToolDefinition,
  type ToolImage,
  type ToolOptions,
  toolSpecOf,
} from "./define-tool.ts";
export type { SecretReader } from "@rein/guard";
export { ToolRegistry } from "./tool-registry.ts";
export { toolsExportOf } from "./tools-export.ts";
export { Workspace } from "./workspace.ts";
export { escapeGlob } from "@rein/guard";
export type { EntryScreen } from "@rein/guard";
export type { ModelToolCall, StepExecutionContext, ToolCallOutcome, ToolExecutor } from "./tool-executor.ts";
export { createToolExecutor, type ToolExecutorDeps } from "./create-tool-executor.ts";
export type { TraceSink } from "./executor/call-trace.ts";
export type { RetryOptions } from "./executor/run-tool.ts";
export { classifyFailure } from "./executor/failure-class.ts";
export { isFailureAddressed, withAddressedFailures } from "./failure-addressed.ts";
export { RecordedResult } from "./recorded-result.ts";
export { ToolResultCache, type ToolResultCacheOptions } from "./tool-result-cache.ts";
export type { StepReadCache } from "./step-read-cache.ts";
export { BUILTIN_TOOL_NAMES, type BuiltinToolName, builtinTools } from "./builtin/builtin-tools.ts";
export type { BuiltinToolOptions, HttpMethod } from "./builtin/builtin-options.ts";
export { type CommandResult, RUN_COMMAND_LIMITS, type RunCommandVariant, renderCommandResult, runCommandTool } from "./builtin/run-command.ts";
export type { HttpResult } from "./builtin/http-request.ts";
export type { SearchMatch, SearchResult } from "./builtin/list-search-tools.ts";
export { IdempotencyStore, type IdempotencyStoreOptions, type RecordOutcome } from "../stores/idempotency-store.ts";
