import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Logger } from "@rein/guard";
import type { KillCause, SessionOpener, SupervisedSession } from "@rein/sandbox";
import type { McpServerConfig } from "./mcp-config.ts";
import type { McpAnnotations } from "./mcp-effect.ts";
import { mcpStartFailure } from "./mcp-start-failure.ts";
import type { McpProcessExit, McpProcessWitness } from "./mcp-stdio-process.ts";

export interface ListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: McpAnnotations;
  execution?: { taskSupport?: string };
}

export interface McpToolCall {
  name: string;
  arguments: Record<string, unknown>;
  /** How long the call may go without an answer or a progress notification. */
  timeoutMs: number;
  /** The most it may take in all, however much progress the server reports. */
  maxTotalTimeoutMs: number;
  /** Each `notifications/progress` the server sends for the call. */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}
/** The requests a session sends for a call: a tool call, or a read of a resource the server named. */
export type McpCall = ({ kind: "tool" } & McpToolCall) | { kind: "resource"; uri: string };
export type McpToolResult = Awaited<ReturnType<Client["callTool"]>>;
export type McpResourceResult = Awaited<ReturnType<Client["readResource"]>>;
export type McpCallResult = McpToolResult | McpResourceResult;

/** What a start (or a list change) found: the server's tools, and whether it offers resources. */
export interface McpListing {
  tools: ListedTool[];
  resources: boolean;
}

/** A session's transport, and for a local server the process behind it. */
export interface McpTransport {
  transport: Transport;
  witness?: McpProcessWitness;
  /** Set when the transport resumes a remote server's earlier session (no `initialize`): what that session's server offered. */
  resumes?: { resources: boolean };
  /** Told the listing once the session is up, so a later connection can resume it. */
  opened?: (listing: McpListing) => void;
}

export interface McpSessionHooks {
  /** A new transport for each start: a stdio child, or a Streamable HTTP connection (resuming the last session when `resume`). */
  openTransport(options: { resume: boolean }): Promise<McpTransport>;
  logger?: Logger;
  /** Every start's listing (the first, and each after a restart). */
  onListed(listing: McpListing): void;
  /** The server said its tools changed; `relist` lists them again. */
  onListChanged(relist: () => Promise<McpListing>): void;
}

// How long a server that failed to start is given to exit, so its exit code can be reported.
const EXIT_WAIT_MS = 2_000;
// A burst of list changes (a server registering several tools) is listed again once.
const LIST_CHANGED_DEBOUNCE_MS = 200;

/**
 * Opens one MCP session for the process supervisor: starts the server (or
 * connects to a remote one, resuming its last session when it still has it),
 * completes `initialize` and `tools/list`, and then answers calls.
 * A call's signal reaches the SDK, which sends `notifications/cancelled`
 * when it aborts; a start that fails says why (command, exit code, stderr).
 */
export function mcpSessionOpener(config: McpServerConfig, hooks: McpSessionHooks): SessionOpener<McpCall, McpCallResult> {
  return async (signal) => {
    const opened = await hooks.openTransport({ resume: true });
    if (!opened.resumes) return openSession(config, hooks, opened, signal);
    try {
      return await openSession(config, hooks, opened, signal);
    } catch (error) {
      // The server forgot the session (a 404), or restarted: a new one starts with initialize.
      hooks.logger?.info(
        { mcpServer: config.name, error: error instanceof Error ? error.message : String(error) },
        "MCP server did not resume its session; starting a new one",
      );
      return openSession(config, hooks, await hooks.openTransport({ resume: false }), signal);
    }
  };
}

async function openSession(
  config: McpServerConfig,
  hooks: McpSessionHooks,
  opened: McpTransport,
  signal: AbortSignal,
): Promise<SupervisedSession<McpCall, McpCallResult>> {
  // Loaded here, not at the top: most processes never start an MCP server and should not pay for the SDK.
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { ErrorCode, McpError } = await import("@modelcontextprotocol/sdk/types.js");
  const { transport, witness } = opened;
  const client: Client = new Client(
    { name: "rein", version: "0.1.0" },
    {
      listChanged: {
        tools: { autoRefresh: false, debounceMs: LIST_CHANGED_DEBOUNCE_MS, onChanged: () => hooks.onListChanged(() => listingOf(client)) },
      },
    },
  );
  const closeOnAbort = () => void client.close().catch(() => {});
  signal.addEventListener("abort", closeOnAbort, { once: true });
  try {
    // A transport resuming a session skips initialize: listing the tools is what shows the session is still there.
    await client.connect(transport, { signal });
    const listing = await listingOf(client, signal, opened.resumes?.resources);
    opened.opened?.(listing);
    hooks.onListed(listing);
  } catch (error) {
    // Its exit code and stderr say why; closing first would only show the signal Rein sent.
    const exit = await witness?.exit(EXIT_WAIT_MS);
    await client.close().catch(() => {});
    throw mcpStartFailure(config, error, exit, witness?.stderrTail() ?? "");
  } finally {
    signal.removeEventListener("abort", closeOnAbort);
  }
  let killedFor: KillCause | null = null;
  // A remote server has no process: its session ends when the transport closes.
  const closed = new Promise<McpProcessExit>((resolve) => {
    client.onclose = () => resolve({ exitCode: null, signal: null });
  });
  const session: SupervisedSession<McpCall, McpCallResult> = {
    pid: (transport as { pid?: number | null }).pid ?? undefined,
    call: async (request, options) => {
      if (request.kind === "resource")
        return client.readResource({ uri: request.uri }, { signal: options.signal, timeout: options.deadlineMs });
      // Aborting at the cap, not only the SDK's check when the next progress arrives, sends notifications/cancelled so the server stops too.
      const cap = new AbortController();
      const capTimer = setTimeout(
        () =>
          cap.abort(
            new McpError(
              ErrorCode.RequestTimeout,
              `Request ran past its cap of ${request.maxTotalTimeoutMs} ms (maxTotalTimeoutMs), progress or not`,
              {
                maxTotalTimeout: request.maxTotalTimeoutMs,
              },
            ),
          ),
        request.maxTotalTimeoutMs,
      );
      try {
        return await client.callTool({ name: request.name, arguments: request.arguments }, undefined, {
          signal: options.signal ? AbortSignal.any([options.signal, cap.signal]) : cap.signal,
          // Sending onprogress is what puts a progressToken on the request; each notification restarts `timeout`.
          onprogress: (progress) => request.onProgress?.(progress),
          timeout: request.timeoutMs,
          resetTimeoutOnProgress: true,
          maxTotalTimeout: request.maxTotalTimeoutMs,
        });
      } finally {
        clearTimeout(capTimer);
      }
    },
    ping: async (timeoutMs) => {
      await client.ping({ timeout: timeoutMs });
    },
    kill: (cause) => {
      killedFor ??= cause;
      void client.close().catch(() => {});
    },
    exited: (witness?.ended ?? closed).then(({ killedBy, ...exit }) => ({
      ...exit,
      killedFor,
      detail:
        killedBy === "memory_limit"
          ? `killed at its memory limit (sandboxLimits.memoryBytes)${tailOf(witness)}`
          : witness?.stderrTail() || undefined,
    })),
  };
  return session;
}

/** The server's tools and whether it offers resources (from `initialize`, or for a resumed session from the one it resumes). */
async function listingOf(client: Client, signal?: AbortSignal, resumedResources?: boolean): Promise<McpListing> {
  const capabilities = client.getServerCapabilities();
  return { tools: await listAll(client, signal), resources: capabilities ? Boolean(capabilities.resources) : Boolean(resumedResources) };
}

async function listAll(client: Client, signal?: AbortSignal): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { signal });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

function tailOf(witness: McpProcessWitness | undefined): string {
  const tail = witness?.stderrTail();
  return tail ? `; its last stderr: ${tail}` : "";
}
