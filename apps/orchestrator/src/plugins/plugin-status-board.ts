import { type PluginSet, type PluginStatus, type ReinRuntime, z } from "@rein/core";
import { publishProcessStatus, readProcessStatus } from "../status-board/process-status-board.ts";

const PublishedStatus = z.object({ at: z.number(), process: z.string(), plugins: z.array(z.record(z.string(), z.unknown())) });

/** What one Rein process said about its plugins, at `at`. */
export interface PublishedPluginStatus {
  process: string;
  at: number;
  plugins: PluginStatus[];
}

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
  return (await readProcessStatus(runtime, PLUGIN_BOARD, PublishedStatus)) as unknown as PublishedPluginStatus[];
}
