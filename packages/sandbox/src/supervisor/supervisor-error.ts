import { ReinError } from "@rein/contracts";

/**
 * Why a supervised call did not get an answer. `crashed`, `deadline`,
 * `protocol_error`, `unhealthy` and `start_failed` count against the circuit
 * breaker; the others say the call was never sent.
 */
export type SupervisorFailure =
  | "crashed"
  | "deadline"
  | "protocol_error"
  | "unhealthy"
  | "start_failed"
  | "breaker_open"
  | "queue_full"
  | "stopped"
  | "aborted";

const BREAKER_FAILURES: ReadonlySet<SupervisorFailure> = new Set(["crashed", "deadline", "protocol_error", "unhealthy", "start_failed"]);

export function supervisorError(
  failure: SupervisorFailure,
  message: string,
  options: { cause?: unknown; details?: Record<string, unknown> } = {},
): ReinError {
  return new ReinError("tool_failed", message, {
    cause: options.cause,
    retryable: failure !== "aborted" && failure !== "stopped",
    details: { ...options.details, supervisor: failure },
  });
}

/** The failure a supervisor error carries, if it is one. */
export function supervisorFailureOf(error: unknown): SupervisorFailure | undefined {
  if (!ReinError.isInstance(error)) return undefined;
  const failure = error.details.supervisor;
  return typeof failure === "string" ? (failure as SupervisorFailure) : undefined;
}

/** Whether the failure says the process (not the call's arguments) is broken. */
export function countsAgainstBreaker(failure: SupervisorFailure): boolean {
  return BREAKER_FAILURES.has(failure);
}
