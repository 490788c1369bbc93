import { ApprovalVerifier, generateKeyPair, loadPublicKey } from "@rein/signing";
import { type ModelScriptInput, ScriptedProvider } from "@rein/models";
import { createRuntime, ReinConfig } from "@rein/runtime";
import type { AnyTool } from "@rein/tools";
import { startRoles, buildTooling } from "@rein/controller";

/**
 * Runs this process as one step worker of a scaling test, the way `rein
 * worker --role step` does (same startRoles, same close on SIGTERM), with
 * the test's tools and scripted model, which the CLI cannot load. Prints
 * `ready` once its workers listen and `stopping` on SIGTERM.
 *
 * Environment (see scaling-deployment.ts): REIN_REDIS_URL, REIN_PREFIX,
 * REIN_WORKSPACE_ROOT, REIN_PACKET_PUBLIC_KEY, SCALING_GATE_DIR,
 * SCALING_CONCURRENCY, SCALING_LOCK_MS, SCALING_STALLED_MS and, optionally,
 * SCALING_GRACE_MS (default 0).
 */
export async function runStepWorkerProcess(tools: (gateDir: string) => AnyTool[], script: ModelScriptInput): Promise<void> {
  const env = (name: string): string => {
    const value = process.env[name];
    if (!value) throw new Error(`a scaling test's step-worker process needs ${name}`);
    return value;
  };
  const runtime = createRuntime(
    ReinConfig.parse({ redisUrl: env("REIN_REDIS_URL"), prefix: env("REIN_PREFIX"), workspaceRoot: env("REIN_WORKSPACE_ROOT") }),
  );
  // The scripts ask for no approval; a key nobody holds the private half of will do.
  const approvals = new ApprovalVerifier(generateKeyPair().publicKey);
  const tooling = await buildTooling(runtime, tools(env("SCALING_GATE_DIR")), approvals);
  const running = startRoles(runtime, {
    roles: ["step"],
    packetPublicKey: loadPublicKey("packet", {}),
    executor: tooling.executor,
    providers: { worker: new ScriptedProvider(script, { name: "scripted-worker" }) },
    concurrency: Number(env("SCALING_CONCURRENCY")),
    stalled: { lockDuration: Number(env("SCALING_LOCK_MS")), stalledInterval: Number(env("SCALING_STALLED_MS")) },
  });
  process.once("SIGTERM", () => {
    process.stdout.write("stopping\n");
    void (async () => {
      await running.close(Number(process.env.SCALING_GRACE_MS ?? 0));
      await tooling.close();
      await runtime.close();
      process.exit(0);
    })();
  });
  await Promise.all(running.workers.map((worker) => worker.waitUntilReady()));
  process.stdout.write("ready\n");
}
