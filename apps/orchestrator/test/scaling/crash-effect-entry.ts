/**
 * A step-worker process for the crash-mid-effect test, started like
 * step-worker-entry.ts with the crash fixture's tool and script.
 *
 * Environment: REIN_REDIS_URL, REIN_PREFIX, REIN_WORKSPACE_ROOT,
 * REIN_PACKET_PUBLIC_KEY, SCALING_GATE_DIR, SCALING_LOCK_MS, SCALING_STALLED_MS.
 */
import { ApprovalVerifier, createRuntime, generateKeyPair, loadPublicKey, ReinConfig, ScriptedProvider } from "@rein/core";
import { startRoles } from "../../src/roles/start-roles.ts";
import { buildTooling } from "../../src/roles/tooling.ts";
import { crashScript, deployRelease } from "./crash-effect-fixture.ts";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`crash-effect-entry needs ${name}`);
  return value;
};

const runtime = createRuntime(
  ReinConfig.parse({ redisUrl: env("REIN_REDIS_URL"), prefix: env("REIN_PREFIX"), workspaceRoot: env("REIN_WORKSPACE_ROOT") }),
);
const approvals = new ApprovalVerifier(generateKeyPair().publicKey);
const tooling = await buildTooling(runtime, [deployRelease(env("SCALING_GATE_DIR"))], approvals);
const running = startRoles(runtime, {
  roles: ["step"],
  packetPublicKey: loadPublicKey("packet", {}),
  executor: tooling.executor,
  providers: { worker: new ScriptedProvider(crashScript, { name: "scripted-worker" }) },
  concurrency: 1,
  stalled: { lockDuration: Number(env("SCALING_LOCK_MS")), stalledInterval: Number(env("SCALING_STALLED_MS")) },
});
process.once("SIGTERM", () => {
  void (async () => {
    await running.close(0);
    await tooling.close();
    await runtime.close();
    process.exit(0);
  })();
});
await Promise.all(running.workers.map((worker) => worker.waitUntilReady()));
process.stdout.write("ready\n");
