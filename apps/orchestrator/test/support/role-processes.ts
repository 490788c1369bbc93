import type { KeyObject } from "node:crypto";
import type { GoalInput } from "@rein/contracts";
import type { RunState } from "@rein/contracts/run";
import { ApprovalVerifier, generatePacketKeys } from "@rein/signing";
import type { ModelProvider } from "@rein/models";
import { createRuntime, type ReinRuntime, type RuntimeOptions } from "@rein/runtime";
import type { AnyTool } from "@rein/tools";
import type { TestRuntime } from "@rein/runtime/testing";
import { submitGoal, type RunningRoles, startRoles, buildTooling, type Tooling } from "@rein/controller";
import { waitForRun } from "@rein/runtime/testing";

export interface RoleProcesses {
  /** One runtime (own Redis connections) per role, control, plan, step and evaluate, as separate processes would have. */
  roleRuntimes: ReinRuntime[];
  tooling: Tooling;
  /** The running roles, in the order of `roleRuntimes`. */
  roles: RunningRoles[];
  /** What a further step role started by a test verifies packets with. */
  packetPublicKey: KeyObject;
  /** What a further controller started by a test (an upgraded one) signs packets with. */
  packetPrivateKey: KeyObject;
  /** Submits as the CLI does; `workspaceDir` is the directory the run works on. */
  submit(goal: GoalInput, options?: { runId?: string; workspaceDir?: string }): Promise<string>;
  waitFor(runId: string, until?: (state: RunState) => boolean): Promise<RunState>;
  /** Stops the roles, their tooling and runtimes, then cleans up the test runtime. */
  close(): Promise<void>;
}

export interface RoleProcessesOptions {
  runtimeOptions: RuntimeOptions;
  providers: { planner: ModelProvider; worker: ModelProvider; judge: ModelProvider };
  extraTools: AnyTool[];
  /** What the step role verifies a person's approvals with. */
  approvalPublicKey: KeyObject;
}

/**
 * Every role as its own BullMQ consumer on a runtime of its own, on the test
 * runtime's prefix, the way separate `rein worker` processes run them.
 */
export async function startRoleProcesses(runtime: TestRuntime, options: RoleProcessesOptions): Promise<RoleProcesses> {
  const keys = generatePacketKeys();
  const roleRuntimes = [0, 1, 2, 3].map(() => createRuntime(runtime.config, options.runtimeOptions));
  const [controlRuntime, planRuntime, stepRuntime, evaluateRuntime] = roleRuntimes as [ReinRuntime, ReinRuntime, ReinRuntime, ReinRuntime];
  const tooling = await buildTooling(stepRuntime, options.extraTools, new ApprovalVerifier(options.approvalPublicKey));
  const { planner, worker, judge } = options.providers;
  const roles = [
    startRoles(controlRuntime, { roles: ["control"], packetPrivateKey: keys.privateKey }),
    startRoles(planRuntime, { roles: ["plan"], providers: { planner } }),
    startRoles(stepRuntime, { roles: ["step"], packetPublicKey: keys.publicKey, executor: tooling.executor, providers: { worker } }),
    startRoles(evaluateRuntime, { roles: ["evaluate"], providers: { judge } }),
  ];
  return {
    roleRuntimes,
    tooling,
    roles,
    packetPublicKey: keys.publicKey,
    packetPrivateKey: keys.privateKey,
    submit: async (goal, submitOptions = {}) =>
      (await submitGoal(runtime, goal, { knownTools: tooling.registry.names(), ...submitOptions })).runId,
    waitFor: (runId, until) => waitForRun(runtime, runId, until),
    close: async () => {
      await Promise.all(roles.map((role) => role.close()));
      await tooling.close();
      for (const role of roleRuntimes) await role.close();
      await runtime.cleanup();
    },
  };
}
