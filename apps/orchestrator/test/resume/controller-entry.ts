/**
 * One controller process of the resume test, started as
 * `node --conditions=@rein/source --import tsx controller-entry.ts`. It runs the control role the way
 * `rein serve` does, with short stalled-job timing so that the events a
 * SIGKILLed controller held come back within the test's time.
 *
 * Environment: REIN_REDIS_URL, REIN_PREFIX, REIN_WORKSPACE_ROOT, REIN_PACKET_PRIVATE_KEY.
 */
import { loadPrivateKey } from "@rein/signing";
import { createRuntime, ReinConfig } from "@rein/runtime";
import { startRoles } from "@rein/controller";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`controller-entry needs ${name}`);
  return value;
};

const runtime = createRuntime(
  ReinConfig.parse({ redisUrl: env("REIN_REDIS_URL"), prefix: env("REIN_PREFIX"), workspaceRoot: env("REIN_WORKSPACE_ROOT") }),
);
const running = startRoles(runtime, {
  roles: ["control"],
  packetPrivateKey: loadPrivateKey("packet", {}),
  stalled: { lockDuration: 1_000, stalledInterval: 500, maxStalledCount: 100 },
});
await Promise.all(running.workers.map((worker) => worker.waitUntilReady()));
process.stdout.write("ready\n");
