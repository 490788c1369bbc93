import { z } from "zod";
import { EnvName } from "./env-name.ts";

/**
 * The resources a tool grant or a single call may touch. An absent list means
 * "not restricted by this grant"; an empty list means "none".
 */
export const Scope = z.object({
  /** Globs relative to the run's workspace, e.g. `src/**`. */
  paths: z.array(z.string()).optional(),
  /** Host names, e.g. `api.example.com` or `*.example.com`. */
  hosts: z.array(z.string()).optional(),
  /** Executable names `run_command` may start, e.g. `node`. */
  commands: z.array(z.string()).optional(),
  /** Named services (for tools like `restart_service`). */
  services: z.array(z.string()).optional(),
});
export type Scope = z.infer<typeof Scope>;

/** A tool a run, step or child may use, narrowed by a scope. */
export const ToolGrant = z.object({
  name: z.string().min(1),
  scope: Scope.default({}),
  /**
   * On the goal's `run_command` grant only: the secrets (by env name) its
   * acceptance checks get in their environment. A check gets a secret only
   * when config binds it to `run_command` and this list names it.
   * @defaultValue none: checks run with no secret
   */
  checkSecrets: z.array(EnvName).optional(),
});
export type ToolGrant = z.infer<typeof ToolGrant>;
