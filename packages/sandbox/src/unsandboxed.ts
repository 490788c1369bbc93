import { resolve } from "node:path";
import { runProcessTree, startProcessTree } from "./process-tree.ts";
import type { Sandbox } from "./sandbox.ts";

/**
 * Config `"sandbox": "none"`: the program runs as the host user with the
 * host's filesystem and network. Only the argv allowlist, the scrubbed
 * environment, the timeout, the output cap and the process-group kill
 * remain; a read-only workspace cannot be enforced, and a started program
 * reaches the network like any host process.
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
  async start([command, ...args], options) {
    // Without a sandbox a mount is the host directory itself, and nothing can be hidden.
    const cwd = options.mounts?.find((mount) => mount.target === options.workingDirectory)?.source ?? options.workingDirectory;
    return startProcessTree(command, args, {
      cwd,
      env: {
        ...options.env,
        PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
        HOME: options.workspaceRoot ?? cwd,
        LANG: "C.UTF-8",
        ...(options.workspaceRoot === undefined ? {} : { REIN_WORKSPACE: options.workspaceRoot }),
      },
    });
  },
};
