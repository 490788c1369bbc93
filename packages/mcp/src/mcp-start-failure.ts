import { ReinError } from "@rein/contracts";
import type { McpServerConfig } from "./mcp-config.ts";
import type { McpProcessExit } from "./mcp-stdio-process.ts";

const SHOWN_COMMAND_CHARS = 300;

/**
 * Why a server did not start, in the terms a person fixing it needs: the
 * command line, how the process ended (or that it is running and did not
 * answer), the end of its stderr, and what the client saw.
 */
export function mcpStartFailure(config: McpServerConfig, cause: unknown, exit: McpProcessExit | undefined, stderrTail: string): ReinError {
  if (config.url) return remoteStartFailure(config, cause);
  const command = [config.command, ...config.args].join(" ").slice(0, SHOWN_COMMAND_CHARS);
  const ended = !exit
    ? "is running but did not complete initialize and tools/list"
    : exit.killedBy === "memory_limit"
      ? "was killed at its memory limit (sandboxLimits.memoryBytes)"
      : exit.signal
        ? `was killed by ${exit.signal}`
        : `exited with code ${exit.exitCode}`;
  const stderr = stderrTail ? `; its stderr ends: ${stderrTail}` : "; it wrote nothing to stderr";
  const seen = cause instanceof Error ? cause.message : String(cause);
  return new ReinError(
    "config_invalid",
    `MCP server ${config.name} failed to start: \`${command}\` ${ended}${stderr} (the client saw: ${seen})`,
    {
      cause,
      details: { server: config.name, command, exitCode: exit?.exitCode ?? null, signal: exit?.signal ?? null, stderrTail },
    },
  );
}

/** A remote server that could not be reached or refused Rein: its URL and what the client saw (a 401 is a wrong or missing token). */
function remoteStartFailure(config: McpServerConfig, cause: unknown): ReinError {
  // Rein's own reason (a token endpoint that refused, a secret not bound) already says what to fix.
  if (ReinError.isInstance(cause)) return cause;
  const seen = cause instanceof Error ? cause.message : String(cause);
  // The SDK's StreamableHTTPError carries the HTTP status as its code.
  const status = (cause as { code?: unknown } | undefined)?.code;
  const refused =
    status === 401 || status === 403 || /\b401\b|unauthorized/i.test(seen)
      ? `refused Rein's credentials (HTTP ${status === 403 ? 403 : 401}: check its auth, the bearer secret or the OAuth client)`
      : "could not be reached or did not complete initialize and tools/list";
  return new ReinError("config_invalid", `MCP server ${config.name} at ${config.url} ${refused} (the client saw: ${seen})`, {
    cause,
    details: { server: config.name, url: config.url ?? null },
  });
}
