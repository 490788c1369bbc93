/**
 * One step-worker process of the scaling test, started as
 * `node --conditions=@rein/source --import tsx step-worker-entry.ts`. It runs the step role the way
 * `rein worker --role step` does (same startRoles, same close on SIGTERM),
 * plus the test's tools and scripted model, which the CLI cannot load.
 *
 * Environment: REIN_REDIS_URL, REIN_PREFIX, REIN_WORKSPACE_ROOT,
 * REIN_PACKET_PUBLIC_KEY, SCALING_GATE_DIR, SCALING_CONCURRENCY,
 * SCALING_LOCK_MS, SCALING_STALLED_MS, SCALING_GRACE_MS.
 */
import { ApprovalVerifier, createRuntime, generateKeyPair, loadPublicKey, ReinConfig, ScriptedProvider } from "@rein/core";
import { startRoles } from "../../src/roles/start-roles.ts";
import { buildTooling } from "../../src/roles/tooling.ts";
import { appendEffect, scalingScript, waitForGate } from "./scaling-fixture.ts";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`step-worker-entry needs ${name}`);
  return value;
};

const runtime = createRuntime(
  ReinConfig.parse({ redisUrl: env("REIN_REDIS_URL"), prefix: env("REIN_PREFIX"), workspaceRoot: env("REIN_WORKSPACE_ROOT") }),
);
// The scaling script asks for no approval; a key nobody holds the private half of will do.
const approvals = new ApprovalVerifier(generateKeyPair().publicKey);
const tooling = await buildTooling(runtime, [appendEffect(env("SCALING_GATE_DIR")), waitForGate(env("SCALING_GATE_DIR"))], approvals);
const running = startRoles(runtime, {
  roles: ["step"],
  packetPublicKey: loadPublicKey("packet", {}),
  executor: tooling.executor,
  providers: { worker: new ScriptedProvider(scalingScript, { name: "scripted-worker" }) },
  concurrency: Number(env("SCALING_CONCURRENCY")),
  stalled: { lockDuration: Number(env("SCALING_LOCK_MS")), stalledInterval: Number(env("SCALING_STALLED_MS")) },
});

process.once("SIGTERM", () => {
  process.stdout.write("stopping\n");
  void (async () => {
    await running.close(Number(env("SCALING_GRACE_MS")));
    await tooling.close();
    await runtime.close();
    process.exit(0);
  })();
});

await Promise.all(running.workers.map((worker) => worker.waitUntilReady()));
process.stdout.write("ready\n");
