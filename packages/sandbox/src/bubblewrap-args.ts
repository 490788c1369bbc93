import { posix } from "node:path";
import { PROXY_BRIDGE, PROXY_ENV, SANDBOX_PROXY_SOCKET } from "./proxy-bridge.ts";
import type { SandboxLimits } from "./sandbox-config.ts";

/** Where the run's workspace appears inside the sandbox; host paths stay hidden. */
export const SANDBOX_WORKSPACE = "/workspace";
export const SANDBOX_UID = 1000;
const SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin";
const SHM_BYTES = 64 * 1024 * 1024;

/** What the host offers for the mounts, found once by `hostLayout`. */
export interface HostLayout {
  /** `/bin`, `/lib`, … that are symlinks into /usr (merged /usr), with their targets. */
  symlinks: ReadonlyArray<readonly [path: string, target: string]>;
  /** System directories and /etc entries that exist and are bound read-only. */
  readOnly: readonly string[];
  /** The synthetic /etc/passwd, /etc/group and /etc/hosts, by name. */
  etcFiles: Readonly<Record<"passwd" | "group" | "hosts", string>>;
  /** Whether this bwrap knows `--disable-userns` (0.8 and later). */
  disableUserns: boolean;
}

export interface BubblewrapCall {
  argv: readonly string[];
  /** Absent: no workspace is mounted (an MCP server configured without one). */
  workspaceRoot?: string;
  /** Where the workspace appears inside. @defaultValue /workspace */
  workspaceTarget?: string;
  cwd: string;
  readOnlyWorkspace: boolean;
  env: Readonly<Record<string, string>>;
  limits: SandboxLimits;
  /** Also cap processes with RLIMIT_NPROC: only when no pids cgroup can, as root ignores it. */
  nprocLimit: boolean;
  /** Install prefixes of programs that live outside /usr (an allowed program in /opt), bound read-only. */
  extraReadOnly?: readonly string[];
  /** Their bin directories, searched after the system's. */
  extraPath?: readonly string[];
  /** Granted hosts: the proxy's socket to bind in and the node that runs the bridge to it. */
  proxy?: { socketPath: string; nodePath: string };
  /** Host directories shown at their `target`, read-only unless `writable` (a plugin's own files). */
  mounts?: ReadonlyArray<{ source: string; target: string; writable?: boolean }>;
  /** An absolute working directory inside the sandbox, instead of `cwd` under the workspace. */
  chdir?: string;
  /** Host paths covered by an empty read-only directory wherever a mount would show them (the keys directory). */
  hidden?: readonly string[];
}

/**
 * The bwrap command line for one call. The process sees the system's
 * programs and libraries read-only, a minimal synthetic /etc, a fresh /tmp,
 * a /proc of its own PID namespace, and the workspace at /workspace as the
 * only writable path (read-only for checks). No network namespace is shared,
 * so it has loopback only: no host, no Redis, no other socket of the host.
 */
export function bubblewrapArgs(layout: HostLayout, call: BubblewrapCall): string[] {
  const args = [
    "--unshare-user",
    "--uid",
    String(SANDBOX_UID),
    "--gid",
    String(SANDBOX_UID),
    ...(layout.disableUserns ? ["--disable-userns"] : []),
    "--unshare-ipc",
    "--unshare-pid",
    "--unshare-net",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--hostname",
    "rein-sandbox",
    "--die-with-parent",
    "--new-session",
    "--clearenv",
  ];
  for (const path of layout.readOnly) args.push("--ro-bind", path, path);
  for (const [path, target] of layout.symlinks) args.push("--symlink", target, path);
  for (const [name, file] of Object.entries(layout.etcFiles)) args.push("--ro-bind", file, `/etc/${name}`);
  // /dev is a tmpfs as large as the host's RAM: read-only but for a bounded /dev/shm, as /tmp is bounded.
  args.push("--proc", "/proc", "--dev", "/dev", "--size", String(SHM_BYTES), "--tmpfs", "/dev/shm", "--remount-ro", "/dev");
  args.push("--size", String(call.limits.fileBytes), "--tmpfs", "/tmp");
  // After the fresh /tmp, so a program installed under it is not hidden by it; mounts before the
  // workspace, so a mount that contains the workspace (a server's directory) does not cover it.
  const shown: Array<{ source: string; target: string; writable?: boolean }> = [];
  for (const path of call.extraReadOnly ?? []) shown.push({ source: path, target: path });
  shown.push(...(call.mounts ?? []));
  for (const mount of shown) args.push(mount.writable ? "--bind" : "--ro-bind", mount.source, mount.target);
  const workspace =
    call.workspaceRoot === undefined ? undefined : { source: call.workspaceRoot, target: call.workspaceTarget ?? SANDBOX_WORKSPACE };
  if (workspace) {
    args.push(call.readOnlyWorkspace ? "--ro-bind" : "--bind", workspace.source, workspace.target);
    shown.push(workspace);
  }
  if (call.proxy) args.push("--bind", call.proxy.socketPath, SANDBOX_PROXY_SOCKET);
  const system = layout.readOnly.map((path) => ({ source: path, target: path }));
  for (const path of hiddenTargets(call.hidden ?? [], [...system, ...shown])) args.push("--tmpfs", path, "--remount-ro", path);
  args.push("--remount-ro", "/");
  args.push("--chdir", call.chdir ?? posix.join(workspace?.target ?? "/", call.cwd));
  const env: Record<string, string> = {
    ...call.env,
    ...(call.proxy ? PROXY_ENV : {}),
    PATH: [SANDBOX_PATH, ...(call.extraPath ?? [])].join(":"),
    HOME: workspace?.target ?? "/tmp",
    LANG: "C.UTF-8",
  };
  for (const [name, value] of Object.entries(env)) args.push("--setenv", name, value);
  const limits = call.limits;
  args.push(
    "--",
    // bwrap sets PWD after --chdir; the environment is exactly what Rein passes.
    "env",
    "-u",
    "PWD",
    "prlimit",
    `--cpu=${limits.cpuSeconds}`,
    `--data=${limits.memoryBytes}`,
    `--fsize=${limits.fileBytes}`,
    "--core=0",
    ...(call.nprocLimit ? [`--nproc=${limits.processes}`] : []),
    "--",
    ...(call.proxy ? [call.proxy.nodePath, "-e", PROXY_BRIDGE] : []),
    ...call.argv,
  );
  return args;
}

/** Where each hidden host path would appear inside: under every mount whose source contains it. */
function hiddenTargets(hidden: readonly string[], shown: ReadonlyArray<{ source: string; target: string }>): string[] {
  const targets = new Set<string>();
  for (const path of hidden) {
    for (const mount of shown) {
      const rest = posix.relative(mount.source, path);
      if (rest !== ".." && !rest.startsWith("../") && !posix.isAbsolute(rest)) targets.add(posix.join(mount.target, rest));
    }
  }
  return [...targets].sort();
}
