// @rein/tools/testing, for other packages' tests: an executor over in-memory sinks, one call
// stage at a time, a temporary workspace per test, and tools that behave as hostile ones do.
export { call, harness, type HarnessOptions, MemoryArtifacts, MemoryTrace, tempWorkspace } from "./executor-harness.ts";
export { callInProgress, FINGERPRINT, intentOf, noteTool } from "./stage-harness.ts";
export { findRecorded } from "../executor/stages/find-recorded.ts";
export { recordIntent } from "../executor/stages/record-intent.ts";
export { type TempWorkspace, workspacePerTest } from "./workspace-per-test.ts";
export { fetchPageTool, restartServiceTool } from "./hostile-tools.ts";
export { echoTool } from "./echo-tool.ts";
