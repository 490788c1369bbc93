import { isAbsolute, relative } from "node:path";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { ReinError } from "@rein/contracts";
import { createLogger, type Logger, parseHostPort } from "@rein/guard";
import { type Sandbox, type SandboxedProcess, logStderr } from "@rein/sandbox";
import type { McpServerConfig } from "./mcp-config.ts";

/** How a server process ended, as far as it is known. */
export interface McpProcessExit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the kernel killed a process of its sandbox for going past `sandboxLimits.memoryBytes`. */
  killedBy?: "memory_limit";
}

/** What a stdio server's process leaves to tell why it failed. */
export interface McpProcessWitness {
  /** Its exit, once it has exited; waits at most `withinMs` for it. */
  exit(withinMs: number): Promise<McpProcessExit | undefined>;
  /** The last lines it wrote to stderr. */
  stderrTail(): string;
  /** Resolves once the process has exited. */
  readonly ended: Promise<McpProcessExit>;
}

/** Where a stdio server runs and what it may see besides its own mounts. */
export interface McpSandboxPlacement {
  sandbox: Sandbox;
  /** The workspace root (config `workspaceRoot`), shown as the server's config `workspace` says. */
  workspaceRoot?: string;
  /** Host paths never shown, even inside a mount (the keys directory). */
  hidden: readonly string[];
  /** The secrets its config declares (`secretEnv`), by variable. */
  secretEnv: Readonly<Record<string, string>>;
  logger?: Logger;
}

const STDERR_LOG_BYTES = 64 * 1024;
const STDERR_TAIL_BYTES = 1_000;
// What the SDK's stdio transport gives a server to exit after its stdin closes, before it is killed.
const CLOSE_GRACE_MS = 2_000;

/**
 * Starts a stdio MCP server the way plugins start (`Sandbox.start`): in the
 * run sandbox, with exactly its config's environment and declared secrets,
 * its `mounts` read-only at their host paths, the workspace root as its
 * config says (read-only by default), only its `hosts` through the proxy,
 * never the keys directory, no host `/proc` and no way to Redis. The SDK's
 * client speaks to it over the sandboxed process's pipes.
 */
export async function startMcpProcess(
  config: McpServerConfig,
  placement: McpSandboxPlacement,
): Promise<{ transport: SandboxedStdioTransport; witness: McpProcessWitness }> {
  const workspaceRoot = config.workspace === "none" ? undefined : placement.workspaceRoot;
  const mounts = config.mounts.map((mount) => mount.path);
  const workingDirectory = config.cwd ?? mounts[0] ?? workspaceRoot ?? "/";
  const shown = [...mounts, ...(workspaceRoot ? [workspaceRoot] : [])];
  if (config.cwd && !shown.some((dir) => within(dir, config.cwd as string))) {
    throw new ReinError(
      "config_invalid",
      `MCP server ${config.name} has cwd ${config.cwd}, which its sandbox does not show; expected a directory inside one of its mounts (${mounts.join(", ") || "none"}) or the workspace root`,
    );
  }
  const child = await placement.sandbox.start([config.command ?? "", ...config.args] as [string, ...string[]], {
    workspaceRoot,
    workspaceTarget: workspaceRoot,
    readOnlyWorkspace: config.workspace !== "read-write",
    mounts: config.mounts.map((mount) => ({ source: mount.path, target: mount.path, writable: mount.writable })),
    hidden: placement.hidden,
    workingDirectory,
    env: { ...config.env, ...placement.secretEnv },
    network: config.hosts.map((entry) => {
      const { host, port } = parseHostPort(entry);
      return { host, port: port ?? 443 };
    }),
  });
  const stderr = logStderr(
    child.stderr,
    placement.logger?.child({ mcpServer: config.name }) ?? silentLogger,
    STDERR_LOG_BYTES,
    STDERR_TAIL_BYTES,
  );
  return { transport: new SandboxedStdioTransport(child), witness: witnessOf(child, () => stderr.tail()) };
}

/**
 * The MCP client's stdio transport over a process the sandbox started:
 * newline-delimited JSON-RPC framed by the SDK's own `ReadBuffer` and
 * `serializeMessage`. Closing ends the server's stdin, then kills its whole
 * process tree if it has not exited within a grace period.
 */
export class SandboxedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private closed = false;

  constructor(private readonly child: SandboxedProcess) {}

  get pid(): number | undefined {
    return this.child.pid;
  }

  async start(): Promise<void> {
    const { ReadBuffer } = await import("@modelcontextprotocol/sdk/shared/stdio.js");
    const buffer = new ReadBuffer();
    this.child.stdout.on("data", (chunk: Buffer) => {
      try {
        buffer.append(chunk);
        for (let message = buffer.readMessage(); message !== null; message = buffer.readMessage()) this.onmessage?.(message);
      } catch (error) {
        // A line that is not JSON-RPC: the SDK's transport reports it and closes; so does this one.
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        void this.close();
      }
    });
    this.child.stdout.on("error", (error: Error) => this.onerror?.(error));
    void this.child.exited.then(() => {
      buffer.clear();
      this.closed = true;
      this.onclose?.();
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error("Not connected");
    const { serializeMessage } = await import("@modelcontextprotocol/sdk/shared/stdio.js");
    const stdin = this.child.stdin;
    if (!stdin.write(serializeMessage(message))) await new Promise<void>((resolve) => stdin.once("drain", () => resolve()));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.child.stdin.end();
    const exitedInTime = await Promise.race([
      this.child.exited.then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), CLOSE_GRACE_MS).unref()),
    ]);
    if (!exitedInTime) this.child.killTree();
    await this.child.exited;
  }
}

function witnessOf(child: SandboxedProcess, stderrTail: () => string): McpProcessWitness {
  let exited: McpProcessExit | undefined;
  const ended = child.exited.then((exit) => {
    exited = {
      exitCode: exit.exitCode,
      signal: exit.signal as NodeJS.Signals | null,
      ...(exit.killedBy ? { killedBy: exit.killedBy } : {}),
    };
    return exited;
  });
  return {
    ended,
    stderrTail,
    exit: (withinMs) =>
      exited
        ? Promise.resolve(exited)
        : Promise.race([ended, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), withinMs).unref())]),
  };
}

function within(dir: string, path: string): boolean {
  const rest = relative(dir, path);
  return rest === "" || (rest !== ".." && !rest.startsWith("../") && !isAbsolute(rest));
}

const silentLogger = createLogger({ level: "silent" });
