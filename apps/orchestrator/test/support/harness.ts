import {
  type AnyTool,
  ApprovalSigner,
  ApprovalVerifier,
  createRuntime,
  generateKeyPair,
  generatePacketKeys,
  type GoalInput,
  isTerminal,
  type ModelProvider,
  type ModelScriptInput,
  type ReinConfigInput,
  type ReinRuntime,
  type RunState,
  type RuntimeOptions,
  ScriptedProvider,
} from "@rein/core";
import { createTestRuntime, type TestRuntime } from "@rein/core/testing";
import type { KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import type { ApprovalDesk } from "../../src/approvals/decide-approval.ts";
import { loadExample } from "../../src/examples/load-example.ts";
import { submitGoal } from "../../src/intake/submit-goal.ts";
import { type RunningRoles, startRoles } from "../../src/roles/start-roles.ts";
import { buildTooling, type Tooling } from "../../src/roles/tooling.ts";

export interface Harness {
  runtime: TestRuntime;
  /** One runtime (own Redis connections) per role, as separate processes would have. */
  roleRuntimes: ReinRuntime[];
  planner: ScriptedProvider;
  worker: ScriptedProvider;
  judge: ScriptedProvider;
  tooling: Tooling;
  /** Decides approvals as a person's client would: the store and the approval private key. */
  desk: ApprovalDesk;
  roles: RunningRoles[];
  /** What a further step role started by a test verifies packets with. */
  packetPublicKey: KeyObject;
  /** Submits as the CLI does; `workspaceDir` is the directory the run works on. */
  submit(goal: GoalInput, options?: { workspaceDir?: string }): Promise<string>;
  waitFor(runId: string, until?: (state: RunState) => boolean): Promise<RunState>;
  close(): Promise<void>;
}

/**
 * Every role as its own BullMQ consumer with its own connections, on a
 * private key prefix, playing a model script. Nothing is mocked: Redis,
 * queues, tools and the workspace are real.
 */
export async function startHarness(
  script: ModelScriptInput,
  extraTools: AnyTool[] = [],
  overrides: { worker?: ModelProvider; config?: ReinConfigInput; env?: NodeJS.ProcessEnv; log?: Pick<RuntimeOptions, "logDestination" | "logLevel"> } = {},
): Promise<Harness> {
  const runtimeOptions: RuntimeOptions = { ...(overrides.env ? { env: overrides.env } : {}), ...overrides.log };
  const runtime = await createTestRuntime(overrides.config, runtimeOptions);
  const keys = generatePacketKeys();
  const planner = new ScriptedProvider(script, { name: "scripted-planner" });
  const worker = new ScriptedProvider(script, { name: "scripted-worker" });
  const judge = new ScriptedProvider(script, { name: "scripted-judge" });
  const roleRuntimes = [0, 1, 2, 3].map(() => createRuntime(runtime.config, runtimeOptions));
  const [controlRuntime, planRuntime, stepRuntime, evaluateRuntime] = roleRuntimes as [ReinRuntime, ReinRuntime, ReinRuntime, ReinRuntime];
  const approvalKeys = generateKeyPair();
  const tooling = await buildTooling(stepRuntime, extraTools, new ApprovalVerifier(approvalKeys.publicKey));
  const roles = [
    startRoles(controlRuntime, { roles: ["control"], packetPrivateKey: keys.privateKey }),
    startRoles(planRuntime, { roles: ["plan"], providers: { planner } }),
    startRoles(stepRuntime, { roles: ["step"], packetPublicKey: keys.publicKey, executor: tooling.executor, providers: { worker: overrides.worker ?? worker } }),
    startRoles(evaluateRuntime, { roles: ["evaluate"], providers: { judge } }),
  ];
  return {
    runtime,
    roleRuntimes,
    planner,
    worker,
    judge,
    tooling,
    desk: { store: tooling.approvals, signer: new ApprovalSigner(approvalKeys.privateKey) },
    roles,
    packetPublicKey: keys.publicKey,
    submit: async (goal, options = {}) => (await submitGoal(runtime, goal, { knownTools: tooling.registry.names(), ...options })).runId,
    waitFor: (runId, until) => waitForRun(runtime, runId, until),
    close: async () => {
      await Promise.all(roles.map((role) => role.close()));
      await tooling.close();
      for (const role of roleRuntimes) await role.close();
      await runtime.cleanup();
    },
  };
}

/**
 * Resolves when the run is terminal (or `until` holds), following its trace
 * rather than polling on a timer. The controller writes state before it
 * appends the trace, so for a finished run this also waits for its `run.*` event.
 */
export async function waitForRun(runtime: ReinRuntime, runId: string, until: (state: RunState) => boolean = (state) => isTerminal(state.status)): Promise<RunState> {
  const controller = new AbortController();
  const finished = (state: RunState, kinds: Set<string>) => until(state) && (!isTerminal(state.status) || kinds.has(`run.${state.status}`));
  const kinds = new Set<string>();
  try {
    for await (const event of runtime.trace.follow(runId, controller.signal, 200)) {
      kinds.add(event.kind);
      const state = await runtime.runs.require(runId);
      if (finished(state, kinds)) return state;
    }
    return runtime.runs.require(runId);
  } finally {
    controller.abort();
  }
}

export async function bugfixExample() {
  const example = await loadExample("bugfix");
  return { example, script: JSON.parse(readFileSync(example.scriptPath, "utf8")) as ModelScriptInput };
}
