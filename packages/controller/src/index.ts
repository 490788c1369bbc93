// @rein/controller: the one writer of run state, the intake that creates runs,
// the start-up of every role in a process, and the workspaces runs work in.

// The control queue's consumer and the pure transition it applies.
export { type ControllerOptions, startController, transitionSettings } from "./control/controller.ts";
export { type SweepOptions, type SweepReport, sweepLostJobs } from "./control/redrive-sweep.ts";
export { type Transition, type TransitionSettings, transition } from "./transition/transition.ts";

// Intake: a goal becomes a run; a person's reply resumes an escalated one.
export { type SubmitOptions, type Submitted, submitGoal } from "./intake/submit-goal.ts";
export { intakeEvents } from "./intake/intake-events.ts";
export { replyToRun } from "./intake/reply-to-run.ts";

// Role start-up: which roles a process runs, with which models and tools.
export { ROLE_NAMES, type RoleName, type RunningRoles, type StartRolesOptions, startRoles } from "./roles/start-roles.ts";
export { buildRegistry, buildTooling, knownToolNames, mcpSandboxing, type Tooling } from "./roles/tooling.ts";
export { checkRoleProviders, providerForRole, roleTable } from "./roles/role-providers.ts";
export { checkModelsAtStart, liveCheckRoles, providerFileProblems } from "./roles/model-startup-check.ts";
export { claimQueueShards } from "./roles/queue-shard-claim.ts";

// What each process publishes about itself, for `rein status`, the API and the dashboard.
export { CONTROLLER_SEEN_SECONDS, controllerSeenRecently, type PublishedWorker, readWorkerStatus } from "./roles/worker-status-board.ts";
export { type McpServerState, publishMcpStatus, readMcpStatus, unavailableMcpServers } from "./status-board/mcp-status-board.ts";
export { type PublishedPlugin, publishPluginStatus, readPluginStatus } from "./status-board/plugin-status-board.ts";

// A run's workspace: prepared from the user's directory, its changes read and applied back.
export { prepareWorkspace } from "./workspace/prepare-workspace.ts";
export { removeWorkspace } from "./workspace/remove-workspace.ts";
export { resolveSeed } from "./workspace/seed-path.ts";
export { readOrigin, WorkspaceOrigin } from "./workspace/workspace-origin.ts";
export { writeRunStartTree } from "./workspace/run-start-tree.ts";
export { type ChangedFile, changedFiles, snapshotRun, unifiedDiff } from "./workspace/run-changes.ts";
export { type ApplyResult, applyRun } from "./workspace/apply-changes.ts";
