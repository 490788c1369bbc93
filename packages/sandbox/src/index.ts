// The boundary around every process a run starts (bubblewrap, a network proxy for the
// granted hosts, cgroup limits), and the supervisor that keeps long-lived ones answering.
export type {
  KillReason,
  ProcessExit,
  Sandbox,
  SandboxedProcess,
  SandboxMount,
  SandboxResult,
  SandboxRunOptions,
  SandboxStartOptions,
} from "./sandbox.ts";
export {
  NetworkGrantEntry,
  SandboxKind,
  SandboxLimits,
  type SandboxLimitsInput,
  SandboxMode,
  UNSANDBOXED_WARNING,
} from "./sandbox-config.ts";
export { probeBubblewrap, resolveSandbox, type ResolveSandboxOptions } from "./sandbox-detection.ts";
export { unsandboxed } from "./unsandboxed.ts";
export type { NetworkGrant } from "./network-proxy.ts";
export { type BreakerChange, CircuitBreaker, type CircuitBreakerOptions } from "./supervisor/circuit-breaker.ts";
export { splitLines } from "./supervisor/line-splitter.ts";
export { PendingRequests } from "./supervisor/pending-requests.ts";
export { ProcessSupervisor, type SupervisorEvent, type SupervisorOptions, type SupervisorStatus } from "./supervisor/process-supervisor.ts";
export { logStderr } from "./supervisor/stderr-log.ts";
export type { KillCause, SessionEnd, SessionOpener, SupervisedSession } from "./supervisor/supervised-session.ts";
export { type SupervisorFailure, supervisorError, supervisorFailureOf } from "./supervisor/supervisor-error.ts";
