import type { PluginSet } from "@rein/plugins";
import type { ReinRuntime } from "@rein/runtime";
import { z } from "@rein/tools";
import { publishProcessStatus, readProcessStatus } from "./process-status-board.ts";

/** A plugin's status as another Rein process published it: read back from Redis, so parsed. */
const PublishedPlugin = z.object({
  name: z.string(),
  version: z.string(),
  mode: z.enum(["persistent", "per_call"]),
  tools: z.array(z.string()),
  breaker: z.enum(["closed", "open", "half_open"]),
  recentFailures: z.number(),
  restarts: z.number(),
  processes: z.array(
    z.object({
      runId: z.string(),
      state: z.enum(["idle", "starting", "running", "backoff", "stopped"]),
      pid: z.number().optional(),
      restarts: z.number(),
      inFlight: z.number(),
      queued: z.number(),
      breaker: z.enum(["closed", "open", "half_open"]),
      lastExit: z
        .object({
          exitCode: z.number().nullable(),
          signal: z.string().nullable(),
          killedFor: z.enum(["deadline", "unhealthy", "protocol_error", "idle", "stopped"]).nullable(),
          detail: z.string().optional(),
        })
        .optional(),
    }),
  ),
});

export type PublishedPlugin = z.infer<typeof PublishedPlugin>;

const PublishedStatus = z.object({ at: z.number(), process: z.string(), plugins: z.array(PublishedPlugin) });

/** What one Rein process said about its plugins, at `at`. */
export type PublishedPluginStatus = z.infer<typeof PublishedStatus>;

/** A field per process, so `rein plugins list` sees every worker's plugins. */
const PLUGIN_BOARD = { name: "plugin-status", what: "plugin status" };

/**
 * Publishes this process's plugin status every few seconds (state,
 * breaker, restarts live in the process that runs them) until the
 * returned function is called, which removes it.
 */
export function publishPluginStatus(runtime: ReinRuntime, plugins: PluginSet): () => Promise<void> {
  return publishProcessStatus(runtime, PLUGIN_BOARD, () => ({ plugins: plugins.status() }));
}

/** Every process's recent plugin status on this prefix; older or unreadable entries are left out. */
export async function readPluginStatus(runtime: ReinRuntime): Promise<PublishedPluginStatus[]> {
  return readProcessStatus(runtime, PLUGIN_BOARD, PublishedStatus);
}
