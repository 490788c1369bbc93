import type { ReinRuntime } from "@rein/runtime";
import { z } from "@rein/tools";
import { publishProcessStatus, readProcessStatus } from "./process-status-board.ts";

export const McpServerState = z.object({
  server: z.string(),
  state: z.enum(["running", "failed"]),
  tools: z.array(z.string()),
  /** Tools it lists that Rein does not offer, and why. */
  withheld: z.array(z.object({ tool: z.string(), reason: z.string() })).default([]),
  /** Its supervised process: state, restarts after crashes or hangs, circuit breaker, last exit. */
  health: z
    .object({
      state: z.string(),
      restarts: z.number(),
      breaker: z.string(),
      inFlight: z.number(),
      lastExit: z.object({ exitCode: z.number().nullable(), signal: z.string().nullable(), killedFor: z.string().nullable() }).optional(),
    })
    .optional(),
  /** Why it is not running: command, exit code, stderr tail. */
  error: z.string().optional(),
});
export type McpServerState = z.infer<typeof McpServerState>;

const PublishedStatus = z.object({ at: z.number(), process: z.string(), servers: z.array(McpServerState) });
export type PublishedMcpStatus = z.infer<typeof PublishedStatus>;

const MCP_BOARD = { name: "mcp-status", what: "MCP server status" };

/**
 * Publishes this process's MCP servers every few seconds until the returned
 * function is called, which removes it: `rein mcp list` and submit (which
 * refuses goals granting a failed server's tools) read it from any process.
 */
export function publishMcpStatus(runtime: ReinRuntime, status: () => McpServerState[]): () => Promise<void> {
  return publishProcessStatus(runtime, MCP_BOARD, () => ({ servers: status() }));
}

/** Every process's recent MCP status on this prefix; older or unreadable entries are left out. */
export async function readMcpStatus(runtime: ReinRuntime): Promise<PublishedMcpStatus[]> {
  return readProcessStatus(runtime, MCP_BOARD, PublishedStatus);
}

/** Servers every reporting process failed to start, with the reason one of them gave: goals granting their tools are refused. */
export function failedEverywhere(published: readonly PublishedMcpStatus[]): Array<{ server: string; reason: string }> {
  const byServer = new Map<string, McpServerState[]>();
  for (const report of published)
    for (const entry of report.servers) byServer.set(entry.server, [...(byServer.get(entry.server) ?? []), entry]);
  return [...byServer.entries()]
    .filter(([, states]) => states.every((state) => state.state === "failed"))
    .map(([server, states]) => ({ server, reason: states[0]?.error ?? "it failed to start" }));
}

/** What submit refuses for: the configured MCP servers no running process could start (none read when none are configured). */
export async function unavailableMcpServers(runtime: ReinRuntime): Promise<Array<{ server: string; reason: string }>> {
  if (runtime.config.mcp.length === 0) return [];
  return failedEverywhere(await readMcpStatus(runtime));
}
