/**
 * Every failure Rein raises on purpose is a ReinError: a stable `code`, a
 * message that says what was wrong and what was expected, an optional
 * `cause`, and whether trying again can help.
 */
export type ReinErrorCode =
  | "config_invalid"
  | "goal_invalid"
  | "contract_invalid"
  | "version_conflict"
  | "not_found"
  | "model_output_invalid"
  | "model_error"
  | "script_exhausted"
  | "tool_refused"
  | "tool_failed"
  | "packet_invalid"
  | "budget_exhausted"
  | "approval_invalid"
  | "redis_unavailable"
  /** A worker's job lock lapsed or was taken: it must stop without writing. */
  | "lock_lost"
  /** The run ended while a worker still ran one of its steps: the step stops without writing. */
  | "run_ended"
  | "workspace_violation"
  /** The directory a run should work on cannot be used as asked (dirty, not found, changed since the run). */
  | "workspace_invalid"
  | "sandbox_unavailable";

export interface ReinErrorOptions {
  cause?: unknown;
  retryable?: boolean;
  details?: Record<string, unknown>;
}

const brand = Symbol.for("rein.error");

export class ReinError extends Error {
  readonly code: ReinErrorCode;
  readonly retryable: boolean;
  readonly details: Record<string, unknown>;
  readonly [brand] = true;

  constructor(code: ReinErrorCode, message: string, options: ReinErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ReinError";
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.details = options.details ?? {};
  }

  /** Works across duplicated copies of this package, unlike `instanceof`. */
  static isInstance(value: unknown): value is ReinError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[brand] === true;
  }

  static hasCode(value: unknown, code: ReinErrorCode): value is ReinError {
    return ReinError.isInstance(value) && value.code === code;
  }
}

export function errorMessage(error: unknown): string {
  if (ReinError.isInstance(error)) return `${error.code}: ${error.message}`;
  if (error instanceof Error) return error.message;
  return String(error);
}
