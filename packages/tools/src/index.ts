// The tool kit: defineTool and the registry, the executor that runs a model's call through
// every check (CALL_STAGES) and the built-in tools. The executor's storage is ports (trace
// sink, idempotency log, approval desk, read cache, artifact writer) that the runtime implements.
export {
  type AnyTool,
  type ApprovalRule,
  type ArtifactWriter,
  defineTool,
  type ToolContext,
  type ToolDefinition,
  type ToolImage,
  type ToolOptions,
} from "./define-tool.ts";
// Tools written outside the workspace (an example's tools.ts) get the zod instance the executor validates with.
export { z } from "zod";
export { ToolRegistry } from "./tool-registry.ts";
export { toolsExportOf } from "./tools-export.ts";
export { Workspace } from "./workspace.ts";
export type { ModelToolCall, StepExecutionContext, ToolCallOutcome, ToolExecutor } from "./tool-executor.ts";
export { createToolExecutor, type ToolExecutorDeps } from "./create-tool-executor.ts";
export { isFailureAddressed, withAddressedFailures } from "./failure-addressed.ts";
export { classifyFailure } from "./executor/failure-class.ts";
export type { TraceSink } from "./executor/call-trace.ts";
export type { CallWatch, WatchedCall } from "./executor/call-watch.ts";
export type { ApprovalDesk } from "./ports/approval-desk.ts";
export type { BeginOutcome, IdempotencyLog, RecordOutcome, StepOwner } from "./ports/idempotency-log.ts";
export type { CacheBatch, ReadCache, RunReadCache, StepReadCache } from "./ports/read-cache.ts";
export { builtinTools } from "./builtin/builtin-tools.ts";
export type { BuiltinToolOptions } from "./builtin/builtin-options.ts";
export { type CommandResult, runCommandTool } from "./builtin/run-command.ts";
