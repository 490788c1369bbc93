/**
 * The controller alone, in its own process (started with --expose-gc), so
 * its heap can be measured without the bench's own objects. On each
 * "measure" line from stdin it collects garbage and prints heapUsed.
 */
import { createInterface } from "node:readline";
import { loadPrivateKey } from "@rein/signing";
import { createRuntime, ReinConfig } from "@rein/runtime";
import { startRoles } from "@rein/orchestrator";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`controller-heap-child needs ${name}`);
  return value;
};
const collect = (globalThis as { gc?: () => void }).gc;
if (!collect) throw new Error("controller-heap-child needs node --expose-gc");

const runtime = createRuntime(
  ReinConfig.parse({ redisUrl: env("REIN_REDIS_URL"), prefix: env("REIN_PREFIX"), workspaceRoot: env("REIN_WORKSPACE_ROOT") }),
);
const running = startRoles(runtime, { roles: ["control"], packetPrivateKey: loadPrivateKey("packet", {}) });
await Promise.all(running.workers.map((worker) => worker.waitUntilReady()));

createInterface({ input: process.stdin }).on("line", (line) => {
  if (line !== "measure") return;
  for (let round = 0; round < 4; round += 1) collect();
  process.stdout.write(`${process.memoryUsage().heapUsed}\n`);
});
process.once("SIGTERM", () => {
  void running.close().then(async () => {
    await runtime.close();
    process.exit(0);
  });
});
process.stdout.write("ready\n");
