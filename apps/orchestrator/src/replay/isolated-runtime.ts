import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectRedis, createRuntime, ReinConfig, type ReinConfigInput, type ReinRuntime } from "@rein/runtime";
import { deleteByPrefix } from "@rein/runtime/keys";

export interface IsolatedRuntime extends ReinRuntime {
  /** Deletes every key under the scratch prefix and the scratch workspaces, then closes. */
  discard(): Promise<void>;
}

/**
 * A runtime on the same Redis under a fresh prefix, with its own workspace
 * root: a replay or an eval case runs here without touching the recorded
 * run, its workspace or the deployment's queues.
 */
export async function openIsolatedRuntime(base: ReinConfig, label: string, overrides: ReinConfigInput = {}): Promise<IsolatedRuntime> {
  const prefix = `${base.prefix}-${label}-${randomBytes(4).toString("hex")}`;
  const workspaceRoot = await mkdtemp(join(tmpdir(), `rein-${label}-`));
  const runtime = createRuntime(ReinConfig.parse({ ...base, ...overrides, prefix, workspaceRoot }));
  return {
    ...runtime,
    discard: async () => {
      // A queue closed before it connected emits an unhandled error; wait for the connection first.
      await Promise.all(runtime.queues.all().map((queue) => queue.waitUntilReady()));
      // Closed before the delete: an open queue can write its meta key back.
      await runtime.close();
      const redis = runtime.redisErrors.watchClient(connectRedis(runtime.config.redisUrl), "scratch cleanup");
      try {
        await deleteByPrefix(redis, prefix);
      } finally {
        redis.disconnect();
      }
      await rm(workspaceRoot, { recursive: true, force: true });
    },
  };
}
