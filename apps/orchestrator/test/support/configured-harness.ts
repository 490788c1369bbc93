import { Writable } from "node:stream";
import { type AnyTool, ApprovalVerifier, createRuntime, generateKeyPair, generatePacketKeys, type GoalInput, type ReinConfigInput, type ReinRuntime, type Role, type RunState } from "@rein/core";
import { createTestRuntime, type TestRuntime } from "@rein/core/testing";
import { submitGoal } from "../../src/intake/submit-goal.ts";
import { providerForRole } from "../../src/roles/role-providers.ts";
import { type RunningRoles, startRoles } from "../../src/roles/start-roles.ts";
import { buildTooling, type Tooling } from "../../src/roles/tooling.ts";
import { waitForRun } from "./harness.ts";

export interface ConfiguredHarness {
  runtime: TestRuntime;
  tooling: Tooling;
  /** Every line any role's logger wrote, as pino JSON. */
  logLines: string[];
  submit(goal: GoalInput, options?: { runId?: string; workspaceDir?: string }): Promise<string>;
  waitFor(runId: string, until?: (state: RunState) => boolean): Promise<RunState>;
  close(): Promise<void>;
}

export interface ConfiguredHarnessOptions {
  /** A rein.config.json's content; redis, prefix and workspace come from the test runtime. */
  config: ReinConfigInput;
  /** What the roles read API keys and secrets from, in place of process.env. */
  env: NodeJS.ProcessEnv;
  extraTools?: AnyTool[];
}

/** The keys `plannerAndWorker` names, as a test's `env` gives them: the fake servers take any. */
export const MODEL_KEYS = { PLANNER_KEY: "pk-test", WORKER_KEY: "wk-test" };

/**
 * Providers and roles for a planner and a worker each behind a model server
 * of its own (a scripted wire server, or one the test controls), speaking
 * Anthropic's wire format unless `worker.kind` says otherwise. The evaluator
 * and the judge ask the planner's.
 */
export function plannerAndWorker(planner: { baseURL: string }, worker: { baseURL: string; kind?: "anthropic" | "openai" }): Pick<ReinConfigInput, "providers" | "roles"> {
  return {
    providers: {
      planner: { kind: "anthropic", baseURL: planner.baseURL, apiKeyEnv: "PLANNER_KEY", maxRetries: 0 },
      worker: { kind: worker.kind ?? "anthropic", baseURL: worker.baseURL, apiKeyEnv: "WORKER_KEY", maxRetries: 0 },
    },
    roles: {
      planner: { provider: "planner", model: "fake-planner" },
      worker: { provider: "worker", model: "fake-worker" },
      evaluator: { provider: "planner", model: "fake-planner" },
      judge: { provider: "planner", model: "fake-planner" },
    },
  };
}

/**
 * Every role as its own consumer with its own runtime, each role's model
 * provider built from config by `providerForRole`, exactly as `rein worker`
 * builds them. Logs of every runtime are captured.
 */
export async function startConfiguredHarness(options: ConfiguredHarnessOptions): Promise<ConfiguredHarness> {
  const logLines: string[] = [];
  const logDestination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logLines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      callback();
    },
  });
  const runtimeOptions = { env: options.env, logDestination };
  const runtime = await createTestRuntime(options.config, runtimeOptions);
  const keys = generatePacketKeys();
  const roleRuntimes = [0, 1, 2, 3].map(() => createRuntime(runtime.config, runtimeOptions));
  const [controlRuntime, planRuntime, stepRuntime, evaluateRuntime] = roleRuntimes as [ReinRuntime, ReinRuntime, ReinRuntime, ReinRuntime];
  const provider = (role: Role) => providerForRole(runtime.config, role, options.env);
  const tooling = await buildTooling(stepRuntime, options.extraTools ?? [], new ApprovalVerifier(generateKeyPair().publicKey));
  const roles: RunningRoles[] = [
    startRoles(controlRuntime, { roles: ["control"], packetPrivateKey: keys.privateKey }),
    startRoles(planRuntime, { roles: ["plan"], providers: { planner: provider("planner") } }),
    startRoles(stepRuntime, { roles: ["step"], packetPublicKey: keys.publicKey, executor: tooling.executor, providers: { worker: provider("worker") } }),
    startRoles(evaluateRuntime, { roles: ["evaluate"], providers: { judge: provider("judge") } }),
  ];
  return {
    runtime,
    tooling,
    logLines,
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
