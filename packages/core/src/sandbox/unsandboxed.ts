import { resolve } from "node:path";
import { runProcessTree } from "./process-tree.ts";
import type { Sandbox } from "./sandbox.ts";

/**
 * Config `"sandbox": "none"`: the program runs as the host user with the
 * host's filesystem and network. Only the argv allowlist, the scrubbed
 * environment, the timeout, the output cap and the process-group kill
 * remain; a read-only workspace cannot be enforced.
 */
export const unsandboxed: Sandbox = {
  kind: "none",
  run([command, ...args], options) {
    return runProcessTree(command, args, {
      cwd: resolve(options.workspaceRoot, options.cwd),
      env: { ...options.env, PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin", HOME: options.workspaceRoot, LANG: "C.UTF-8" },
      timeoutMs: options.timeoutMs,
      maxOutputBytes: options.maxOutputBytes,
      signal: options.signal,
      sandbox: "none",
    });
  },
};
