/** Why a session's process was killed by the runtime; absent when it exited on its own. */
export type KillCause = "deadline" | "unhealthy" | "protocol_error" | "idle" | "stopped";

export interface SessionEnd {
  exitCode: number | null;
  signal: string | null;
  /** Set when the runtime killed it. */
  killedFor: KillCause | null;
  /** A protocol error, or the last stderr lines of a process that died. */
  detail?: string;
}

/**
 * One started child process speaking some request/response protocol, already
 * past its handshake. The plugin wire (JSON lines) is one implementation; an
 * MCP stdio client is meant to be another. A session matches answers to
 * requests by id; every pending call rejects (with a `SupervisorError`) when
 * the process ends.
 */
export interface SupervisedSession<Request, Response> {
  readonly pid: number | undefined;
  /**
   * Sends one request and resolves with its answer; the supervisor enforces
   * the deadline. `signal` aborts with the caller, so a protocol that can
   * cancel one request (MCP's `notifications/cancelled`) does so.
   */
  call(request: Request, options: { deadlineMs: number; signal?: AbortSignal }): Promise<Response>;
  /** Resolves when the process answers a health check within `timeoutMs`, rejects otherwise. */
  ping(timeoutMs: number): Promise<void>;
  /** Kills the whole process tree; `exited` resolves once it is gone. Safe to call twice. */
  kill(cause: KillCause): void;
  readonly exited: Promise<SessionEnd>;
  /** Why calls may be going unanswered (answers with ids nobody asked for, say), for the deadline's message. */
  describeHang?(): string | undefined;
}

/** Starts a process and completes its handshake; rejects (and leaves nothing running) when either fails or `signal` aborts. */
export type SessionOpener<Request, Response> = (signal: AbortSignal) => Promise<SupervisedSession<Request, Response>>;
