import { readFileSync } from "node:fs";
import { ApprovalSigner, generateKeyPair } from "@rein/signing";
import { type ModelProvider, type ModelScriptInput, ScriptedProvider } from "@rein/models";
import type { ReinConfigInput, RuntimeOptions } from "@rein/runtime";
import type { AnyTool } from "@rein/tools";
import { createTestRuntime, type TestRuntime } from "@rein/runtime/testing";
import type { ApprovalDesk } from "../../src/approvals/decide-approval.ts";
import { loadExample } from "../../src/examples/load-example.ts";
import { type RoleProcesses, startRoleProcesses } from "./role-processes.ts";

export interface Harness extends RoleProcesses {
  runtime: TestRuntime;
  planner: ScriptedProvider;
  worker: ScriptedProvider;
  judge: ScriptedProvider;
  /** Decides approvals as a person's client would: the store and the approval private key. */
  desk: ApprovalDesk;
}

/**
 * Every role as its own BullMQ consumer with its own connections, on a
 * private key prefix, playing a model script. Nothing is mocked: Redis,
 * queues, tools and the workspace are real.
 */
export async function startHarness(
  script: ModelScriptInput,
  extraTools: AnyTool[] = [],
  overrides: {
    worker?: ModelProvider;
    config?: ReinConfigInput;
    env?: NodeJS.ProcessEnv;
    log?: Pick<RuntimeOptions, "logDestination" | "logLevel">;
  } = {},
): Promise<Harness> {
  const runtimeOptions: RuntimeOptions = { ...(overrides.env ? { env: overrides.env } : {}), ...overrides.log };
  const runtime = await createTestRuntime(overrides.config, runtimeOptions);
  const planner = new ScriptedProvider(script, { name: "scripted-planner" });
  const worker = new ScriptedProvider(script, { name: "scripted-worker" });
  const judge = new ScriptedProvider(script, { name: "scripted-judge" });
  const approvalKeys = generateKeyPair();
  const processes = await startRoleProcesses(runtime, {
    runtimeOptions,
    providers: { planner, worker: overrides.worker ?? worker, judge },
    extraTools,
    approvalPublicKey: approvalKeys.publicKey,
  });
  return {
    ...processes,
    runtime,
    planner,
    worker,
    judge,
    desk: { store: processes.tooling.approvals, signer: new ApprovalSigner(approvalKeys.privateKey) },
  };
}

/** A harness on example `name`: its script, tools and config; with `seeds`, a goal may name a folder of the example as its workspace's seed. */
export async function startExampleHarness(name: string, options: { seeds?: boolean } = {}): Promise<Harness> {
  const example = await loadExample(name);
  const script = JSON.parse(readFileSync(example.scriptPath, "utf8")) as ModelScriptInput;
  return startHarness(script, [...example.tools], { config: { ...example.config, ...(options.seeds ? { seedsRoot: example.dir } : {}) } });
}

export async function bugfixExample() {
  const example = await loadExample("bugfix");
  return { example, script: JSON.parse(readFileSync(example.scriptPath, "utf8")) as ModelScriptInput };
}
