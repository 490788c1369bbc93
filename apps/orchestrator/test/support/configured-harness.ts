import { Writable } from "node:stream";
import type { Role } from "@rein/contracts";
import { generateKeyPair } from "@rein/signing";
import type { ModelScriptInput } from "@rein/models";
import type { ReinConfigInput } from "@rein/runtime";
import type { AnyTool } from "@rein/tools";
import { type FakeServer, startScriptedWireServer } from "@rein/models/testing";
import { createTestRuntime, type TestRuntime } from "@rein/runtime/testing";
import { providerForRole } from "@rein/controller";
import { type RoleProcesses, startRoleProcesses } from "./role-processes.ts";

export interface ConfiguredHarness extends RoleProcesses {
  runtime: TestRuntime;
  /** Every line any role's logger wrote, as pino JSON. */
  logLines: string[];
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
export function plannerAndWorker(
  planner: { baseURL: string },
  worker: { baseURL: string; kind?: "anthropic" | "openai" },
): Pick<ReinConfigInput, "providers" | "roles"> {
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

/** The planner's model server plannerAndWorker points at, playing `script` in Anthropic's wire format. */
export function scriptedPlanner(script: ModelScriptInput): Promise<FakeServer> {
  return startScriptedWireServer({ format: "anthropic", role: "planner", script, model: "fake-planner" });
}

export interface ScriptedModels {
  planner: FakeServer;
  worker: FakeServer;
  /** Stops both servers. */
  stop(): Promise<void>;
}

/** The planner's and the worker's model servers plannerAndWorker points at, both playing `script`, the worker's in `workerFormat`. */
export async function scriptedModels(
  script: ModelScriptInput,
  workerFormat: "anthropic" | "openai" = "anthropic",
): Promise<ScriptedModels> {
  const planner = await scriptedPlanner(script);
  const worker = await startScriptedWireServer({ format: workerFormat, role: "worker", script, model: "fake-worker" });
  return {
    planner,
    worker,
    stop: async () => {
      await planner.stop();
      await worker.stop();
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
  const provider = (role: Role) => providerForRole(runtime.config, role, options.env);
  const processes = await startRoleProcesses(runtime, {
    runtimeOptions,
    providers: { planner: provider("planner"), worker: provider("worker"), judge: provider("judge") },
    extraTools: options.extraTools ?? [],
    // These runs ask for no approval; a key nobody holds the private half of will do.
    approvalPublicKey: generateKeyPair().publicKey,
  });
  return { ...processes, runtime, logLines };
}
