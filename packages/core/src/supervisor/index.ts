export { type BreakerAdmission, type BreakerChange, type BreakerState, CircuitBreaker, type CircuitBreakerOptions } from "./circuit-breaker.ts";
export { splitLines } from "./line-splitter.ts";
export { PendingRequests } from "./pending-requests.ts";
export { ProcessSupervisor, type SupervisionMode, type SupervisorEvent, type SupervisorOptions, type SupervisorStatus } from "./process-supervisor.ts";
export { logStderr, type StderrLog } from "./stderr-log.ts";
export type { KillCause, SessionEnd, SessionOpener, SupervisedSession } from "./supervised-session.ts";
export { countsAgainstBreaker, type SupervisorFailure, supervisorError, supervisorFailureOf } from "./supervisor-error.ts";
