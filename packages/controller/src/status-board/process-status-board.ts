import { hostname } from "node:os";
import { errorMessage } from "@rein/contracts";
import type { ReinRuntime } from "@rein/runtime";
import type { z } from "@rein/tools";

/** How often a process publishes its status. */
const PUBLISH_MS = 5_000;
/** How old a published status may be before it is ignored: a process not heard from within it counts as gone. */
export const PROCESS_SEEN_MS = 30_000;

/**
 * One hash per prefix and board, a field per process: what lives only in
 * the process that runs it (plugin or MCP server state) becomes visible to
 * every CLI and submitter on the prefix.
 */
export interface StatusBoard {
  /** The key under the prefix, e.g. `plugin-status`. */
  name: string;
  /** What is published, for the warning when publishing fails. */
  what: string;
}

/**
 * Publishes `payload()` every few seconds until the returned function is
 * called, which removes it. `instance` tells apart several publishers of
 * one board in one process (roles started separately in one process).
 */
export function publishProcessStatus(
  runtime: ReinRuntime,
  board: StatusBoard,
  payload: () => Record<string, unknown>,
  instance?: string,
): () => Promise<void> {
  const field = `${hostname()}:${process.pid}${instance ? `/${instance}` : ""}`;
  const key = `${runtime.config.prefix}:${board.name}`;
  const publish = async () => {
    const value = JSON.stringify({ ...payload(), at: Date.now(), process: field });
    await runtime.redis
      .multi()
      .hset(key, field, value)
      .pexpire(key, PROCESS_SEEN_MS * 2)
      .exec();
  };
  const failed = (error: unknown) => runtime.logger.warn({ error: errorMessage(error) }, `could not publish ${board.what}`);
  publish().catch(failed);
  const timer = setInterval(() => publish().catch(failed), PUBLISH_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await runtime.redis.hdel(key, field).catch(failed);
  };
}

/** Every process's recent status on the board, by process; older or unreadable entries are left out. */
export async function readProcessStatus<Schema extends z.ZodType<{ at: number; process: string }>>(
  runtime: ReinRuntime,
  board: StatusBoard,
  schema: Schema,
): Promise<z.infer<Schema>[]> {
  const entries = await runtime.redis.hgetall(`${runtime.config.prefix}:${board.name}`);
  const fresh: z.infer<Schema>[] = [];
  for (const value of Object.values(entries)) {
    try {
      const parsed = schema.safeParse(JSON.parse(value));
      if (parsed.success && Date.now() - parsed.data.at <= PROCESS_SEEN_MS) fresh.push(parsed.data);
    } catch {
      // A field another version wrote: not ours to interpret.
    }
  }
  return fresh.sort((a, b) => a.process.localeCompare(b.process));
}
