import { hostname } from "node:os";
import { errorMessage, type PluginSet, type PluginStatus, type ReinRuntime, z } from "@rein/core";

/** How often a process with plugins publishes their status, and how old a published status may be before it is ignored. */
const PUBLISH_MS = 5_000;
const STALE_MS = 30_000;

const PublishedStatus = z.object({ at: z.number(), process: z.string(), plugins: z.array(z.record(z.string(), z.unknown())) });

/** What one Rein process said about its plugins, at `at`. */
export interface PublishedPluginStatus {
  process: string;
  at: number;
  plugins: PluginStatus[];
}

/** One hash per prefix: a field per process, so `rein plugins list` sees every worker's plugins. */
const boardKey = (prefix: string) => `${prefix}:plugin-status`;

/**
 * Publishes this process's plugin status every few seconds (state,
 * breaker, restarts live in the process that runs them) until the
 * returned function is called, which removes it.
 */
export function publishPluginStatus(runtime: ReinRuntime, plugins: PluginSet): () => Promise<void> {
  const field = `${hostname()}:${process.pid}`;
  const key = boardKey(runtime.config.prefix);
  const publish = async () => {
    const value = JSON.stringify({ at: Date.now(), process: field, plugins: plugins.status() });
    await runtime.redis.multi().hset(key, field, value).pexpire(key, STALE_MS * 2).exec();
  };
  const failed = (error: unknown) => runtime.logger.warn({ error: errorMessage(error) }, "could not publish plugin status");
  publish().catch(failed);
  const timer = setInterval(() => publish().catch(failed), PUBLISH_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await runtime.redis.hdel(key, field).catch(failed);
  };
}

/** Every process's recent plugin status on this prefix; older or unreadable entries are left out. */
export async function readPluginStatus(runtime: ReinRuntime): Promise<PublishedPluginStatus[]> {
  const entries = await runtime.redis.hgetall(boardKey(runtime.config.prefix));
  const fresh: PublishedPluginStatus[] = [];
  for (const value of Object.values(entries)) {
    try {
      const parsed = PublishedStatus.safeParse(JSON.parse(value));
      if (parsed.success && Date.now() - parsed.data.at <= STALE_MS) fresh.push(parsed.data as unknown as PublishedPluginStatus);
    } catch {
      // A field another version wrote: not ours to interpret.
    }
  }
  return fresh.sort((a, b) => a.process.localeCompare(b.process));
}
