import type { ToolProgress } from "../define-tool.ts";

/** Which call a watch hears about: the model's call id, the tool and the call's index in its step. */
export interface WatchedCall {
  callId: string;
  tool: string;
  index: number;
}

/**
 * Hears of a tool call while it runs, before any of it is durable: the
 * trace gets a call's events only with its step's turn write, after the
 * call ended. A step worker puts them on the run's live channel. Each
 * method is called synchronously and must not throw or wait: a view that
 * misses a call must never slow or fail it.
 */
export interface CallWatch {
  /** The tool starts now (not a replay, a cache hit or a refusal). `args`: redacted, left out above 4 KiB. */
  started(call: WatchedCall & { startedAt: string; args?: unknown }): void;
  /** A progress report the trace keeps (the first, then at most one a second). */
  progress(call: WatchedCall, update: ToolProgress): void;
  /** The tool returned, failed or was cut off; `status` as the call's result will say, or `interrupted`. */
  finished(call: WatchedCall & { status: string; durationMs: number }): void;
}
