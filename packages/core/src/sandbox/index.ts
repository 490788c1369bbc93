export {
  type KillReason,
  type ProcessExit,
  type Sandbox,
  type SandboxedProcess,
  type SandboxMount,
  type SandboxStartOptions,
  SandboxKind,
  SandboxLimits,
  type SandboxLimitsInput,
  SandboxMode,
  type SandboxResult,
  type SandboxRunOptions,
} from "./sandbox.ts";
export { INSTALL_HINT, probeBubblewrap, resolveSandbox, type ResolveSandboxOptions, UNSANDBOXED_WARNING } from "./sandbox-detection.ts";
export { createBubblewrapSandbox, type BubblewrapSandboxOptions } from "./bubblewrap-sandbox.ts";
export { unsandboxed } from "./unsandboxed.ts";
export type { NetworkGrant } from "./network-proxy.ts";
