import { z } from "zod";

// The sandbox's piece of config (`sandbox`, `sandboxLimits`, the host:port grants a config names),
// which the runtime's config assembles without loading the sandbox itself.

/** Which boundary a process ran inside; recorded with every process a run starts. */
export const SandboxKind = z.enum(["bubblewrap", "none"]);
export type SandboxKind = z.infer<typeof SandboxKind>;

/** Config `sandbox`: `auto` picks bubblewrap when it can start and refuses to run processes otherwise. */
export const SandboxMode = z.enum(["auto", "bubblewrap", "none"]);
export type SandboxMode = z.infer<typeof SandboxMode>;

/** Per-process limits inside the sandbox (config `sandboxLimits`). */
export const SandboxLimits = z.object({
  /** CPU seconds per process (RLIMIT_CPU). @defaultValue 120 */
  cpuSeconds: z.number().int().positive().max(3600).default(120),
  /**
   * Memory of one call's processes together, in bytes (a cgroup's
   * `memory.max`, v1 `memory.limit_in_bytes`, where one can be made), and
   * writable data memory of each process (RLIMIT_DATA). @defaultValue 1 GiB
   */
  memoryBytes: z
    .number()
    .int()
    .min(64 * 1024 * 1024)
    .default(1024 * 1024 * 1024),
  /** Processes and threads of one call, all together (cgroup pids.max, else RLIMIT_NPROC). @defaultValue 256 */
  processes: z.number().int().min(8).max(4096).default(256),
  /** Largest file a process may write (RLIMIT_FSIZE) and size of the fresh /tmp. @defaultValue 256 MiB */
  fileBytes: z
    .number()
    .int()
    .min(1024 * 1024)
    .default(256 * 1024 * 1024),
});
export type SandboxLimits = z.infer<typeof SandboxLimits>;
export type SandboxLimitsInput = z.input<typeof SandboxLimits>;

/** How config names a host a sandboxed program may reach: `host:port`, the port explicit, no pattern. */
export const NetworkGrantEntry = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?:\d{1,5}$/, "expected host:port with an explicit port, e.g. api.example.com:443");

/** Printed by the CLI and traced (`sandbox.disabled`) for every run under config `"sandbox": "none"`. */
export const UNSANDBOXED_WARNING =
  'config "sandbox": "none": programs started by run_command, acceptance checks, plugins and MCP stdio servers run unconfined, with this process\'s user, files, keys directory and network';
