import type { ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createLogger, type Logger } from "../logger.ts";
import { logStderr } from "../supervisor/stderr-log.ts";

/** How a server process ended, as far as it is known. */
export interface McpProcessExit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
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

const STDERR_LOG_BYTES = 64 * 1024;
const STDERR_TAIL_BYTES = 1_000;

/**
 * Watches a stdio transport's process: its stderr goes to the log (bounded)
 * and its last lines are kept, and its exit code is caught. The SDK's
 * transport drops the exit code, so the child is taken from it once started.
 */
export function watchMcpProcess(transport: StdioClientTransport, logger: Logger | undefined, server: string): McpProcessWitness {
  // With `stderr: "pipe"` the SDK hands out a PassThrough, a Readable its Stream type does not say.
  const stderr = transport.stderr ? logStderr(transport.stderr as Readable, logger?.child({ mcpServer: server }) ?? silentLogger, STDERR_LOG_BYTES, STDERR_TAIL_BYTES) : undefined;
  let exited: McpProcessExit | undefined;
  const waiters = new Set<() => void>();
  let markEnded: (exit: McpProcessExit) => void = () => {};
  const ended = new Promise<McpProcessExit>((resolve) => {
    markEnded = resolve;
  });
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    // Attached as the spawn resolves, before any exit can be delivered.
    const child = Reflect.get(transport, "_process") as ChildProcess | undefined;
    child?.once("exit", (exitCode, signal) => {
      exited = { exitCode, signal };
      markEnded(exited);
      for (const wake of waiters) wake();
    });
  };
  return {
    ended,
    stderrTail: () => stderr?.tail() ?? "",
    exit: (withinMs) =>
      exited
        ? Promise.resolve(exited)
        : new Promise((resolve) => {
            const wake = () => {
              clearTimeout(timer);
              waiters.delete(wake);
              resolve(exited);
            };
            const timer = setTimeout(wake, withinMs);
            waiters.add(wake);
          }),
  };
}

const silentLogger = createLogger({ level: "silent" });
