import type { Readable, Writable } from "node:stream";
import type { NetworkGrant } from "./network-proxy.ts";
import type { SandboxKind } from "./sandbox-config.ts";

export interface SandboxRunOptions {
  /** The run's workspace on the host: the only path a process may write (or read, beyond the system's programs). */
  workspaceRoot: string;
  /** The working directory, relative to the workspace root (already confined to it). */
  cwd: string;
  /** Checks read but never change the workspace. @defaultValue false */
  readOnlyWorkspace?: boolean;
  /** Variables added to PATH, HOME and LANG: the secrets the tool's config binds to it. @defaultValue none */
  env?: Readonly<Record<string, string>>;
  /** Hosts and ports reachable through the filtering proxy; absent or empty: no network at all. */
  network?: readonly NetworkGrant[];
  timeoutMs: number;
  /** Bytes kept of each of stdout and stderr; a process that writes far more is killed. */
  maxOutputBytes: number;
  /** Aborting kills the whole process tree. */
  signal?: AbortSignal;
}

/** Why the runtime killed a process tree (or, at `memory_limit`, the kernel a process of it), when it did. */
export type KillReason = "timeout" | "aborted" | "output_limit" | "memory_limit";

export interface SandboxResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  timedOut: boolean;
  killedBy: KillReason | null;
  sandbox: SandboxKind;
  /** `host:port` targets the network proxy refused. */
  networkRefused: string[];
}

/** A host directory shown inside the sandbox (a plugin's own files, an MCP server's install directory). */
export interface SandboxMount {
  source: string;
  /** An absolute path inside the sandbox, outside /workspace. */
  target: string;
  /** Set-id bits are cleared from a writable mount when its program ends, as from the workspace. @defaultValue false */
  writable?: boolean;
}

export interface SandboxStartOptions {
  /** The workspace on the host, named inside by $REIN_WORKSPACE; absent, the program sees none. */
  workspaceRoot?: string;
  /** Where the workspace appears inside. @defaultValue /workspace */
  workspaceTarget?: string;
  /** @defaultValue false */
  readOnlyWorkspace?: boolean;
  mounts?: readonly SandboxMount[];
  /**
   * Host paths the program must never see even where a mount or the
   * workspace contains them (the keys directory): an empty read-only
   * directory is put over each.
   */
  hidden?: readonly string[];
  /** The working directory: a mount's `target`, or inside the workspace. */
  workingDirectory: string;
  /** Variables added to PATH, HOME, LANG and REIN_WORKSPACE: the secrets bound to the program. */
  env?: Readonly<Record<string, string>>;
  /** Hosts and ports reachable through the filtering proxy; absent or empty: no network at all. */
  network?: readonly NetworkGrant[];
}

export interface ProcessExit {
  exitCode: number | null;
  signal: string | null;
  /** Set when the program could not be started at all. */
  error?: string;
  /** Set when the kernel killed a process of it for going past `sandboxLimits.memoryBytes`. */
  killedBy?: "memory_limit";
}

/** A long-lived program inside the sandbox, spoken to over its stdin and stdout. */
export interface SandboxedProcess {
  readonly pid: number | undefined;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Resolves once the process tree is gone and the sandbox's resources are released. */
  readonly exited: Promise<ProcessExit>;
  /** Kills the whole process tree; safe to call more than once. */
  killTree(): void;
}

/**
 * Starts programs with an argv array (never a shell) inside a boundary:
 * `run` waits for the whole process tree to end, `start` hands back a
 * running one. Implementations: bubblewrap
 * (`createBubblewrapSandbox`) and none (`unsandboxed`).
 */
export interface Sandbox {
  readonly kind: SandboxKind;
  run(argv: readonly [string, ...string[]], options: SandboxRunOptions): Promise<SandboxResult>;
  /** Starts a program that stays up, with pipes to talk to it; the caller decides when it ends (`killTree`). */
  start(argv: readonly [string, ...string[]], options: SandboxStartOptions): Promise<SandboxedProcess>;
}
