import { type BubblewrapCall, bubblewrapArgs, type HostLayout, SANDBOX_WORKSPACE } from "./bubblewrap-args.ts";
import { CallCgroup, type CgroupRoots } from "./call-cgroup.ts";
import { runProcessTree, startProcessTree } from "./process-tree.ts";
import { startFilteringProxy, type NetworkGrant } from "./network-proxy.ts";
import { installLocation, programLocation } from "./program-location.ts";
import { scrubSetIdBits } from "./setid-scrub.ts";
import type { Sandbox, SandboxedProcess, SandboxResult } from "./sandbox.ts";
import type { SandboxLimits } from "./sandbox-config.ts";

export interface BubblewrapSandboxOptions {
  bwrapPath: string;
  layout: HostLayout;
  limits: SandboxLimits;
  /**
   * Where per-call cgroups go: without a pids root, process count falls back
   * to RLIMIT_NPROC (not enforced for root); without a memory root, memory
   * is held per process by RLIMIT_DATA only.
   */
  cgroups?: CgroupRoots;
}

/**
 * Runs each call in a fresh bubblewrap sandbox (see `bubblewrapArgs` for
 * what it sees) inside cgroups of its own (process count and memory). On timeout, abort or
 * runaway output the outer bwrap is killed; `--die-with-parent` takes the
 * sandbox's PID 1 with it and the kernel kills everything else in that PID
 * namespace, so no background child survives. The cgroup kill is a second
 * net for the same.
 */
export function createBubblewrapSandbox(options: BubblewrapSandboxOptions): Sandbox {
  return {
    kind: "bubblewrap",
    async run(argv, call): Promise<SandboxResult> {
      const boundary = await enterBoundary(options, argv, call, { cwd: call.cwd, env: call.env ?? {} });
      try {
        const result = await runProcessTree(boundary.file, boundary.args, {
          // The sandbox's PID 1 keeps the wrapper's initial environment: nothing of the host in it.
          cwd: "/",
          env: {},
          timeoutMs: call.timeoutMs,
          maxOutputBytes: call.maxOutputBytes,
          signal: call.signal,
          sandbox: "bubblewrap",
          killTree: boundary.killTree,
        });
        const killedBy = result.killedBy ?? ((await boundary.memoryKills()) > 0 ? "memory_limit" : null);
        return { ...result, killedBy, networkRefused: boundary.networkRefused() };
      } finally {
        await boundary.release();
      }
    },
    async start(argv, call): Promise<SandboxedProcess> {
      const workspaceTarget = call.workspaceTarget ?? SANDBOX_WORKSPACE;
      const boundary = await enterBoundary(options, argv, call, {
        cwd: ".",
        chdir: call.workingDirectory,
        mounts: call.mounts,
        workspaceTarget,
        hidden: call.hidden,
        env: { ...call.env, ...(call.workspaceRoot === undefined ? {} : { REIN_WORKSPACE: workspaceTarget }) },
      });
      let memoryKills = 0;
      const child = startProcessTree(boundary.file, boundary.args, {
        cwd: "/",
        env: {},
        killTree: boundary.killTree,
        release: async () => {
          memoryKills = await boundary.memoryKills();
          await boundary.release();
        },
      });
      return { ...child, exited: child.exited.then((exit) => (memoryKills > 0 ? { ...exit, killedBy: "memory_limit" as const } : exit)) };
    },
  };
}

/** `sh -c` script: joins the $1 cgroups named next (their cgroup.procs files), then execs the rest. */
const JOIN_CGROUPS = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n - 1)); done; exec "$@"';

/** What a call that runs to its end and a program that stays up set differently: where they work and what they see. */
type Placement = Pick<BubblewrapCall, "cwd" | "chdir" | "mounts" | "env" | "workspaceTarget" | "hidden">;

/** One process's boundary, made ready: the command line that enters it, and how to kill and take it down. */
interface Boundary {
  file: string;
  args: string[];
  killTree(pid: number): void;
  /** Frees the cgroup and the proxy and scrubs set-id bits from a writable workspace. */
  release(): Promise<void>;
  /** Processes the kernel killed at the memory limit so far; read before `release`. */
  memoryKills(): Promise<number>;
  networkRefused(): string[];
}

async function enterBoundary(
  options: BubblewrapSandboxOptions,
  argv: readonly [string, ...string[]],
  call: { workspaceRoot?: string; readOnlyWorkspace?: boolean; network?: readonly NetworkGrant[] },
  placement: Placement,
): Promise<Boundary> {
  const located = programLocation(argv[0]);
  const proxy = call.network && call.network.length > 0 ? await startFilteringProxy(call.network) : undefined;
  const node = proxy ? installLocation(process.execPath) : undefined;
  const roots = options.cgroups ?? {};
  const cgroup =
    roots.pids || roots.memory
      ? await CallCgroup.create(roots, options.limits).catch(async (error) => {
          await proxy?.close();
          throw error;
        })
      : undefined;
  const args = bubblewrapArgs(options.layout, {
    argv,
    workspaceRoot: call.workspaceRoot,
    ...placement,
    readOnlyWorkspace: call.readOnlyWorkspace ?? false,
    limits: options.limits,
    nprocLimit: roots.pids === undefined,
    extraReadOnly: [located?.mount, node?.mount].filter((path): path is string => path !== undefined),
    extraPath: located ? [located.bin] : [],
    proxy: proxy ? { socketPath: proxy.socketPath, nodePath: process.execPath } : undefined,
  });
  // The shell joins the cgroups before it becomes bwrap, so nothing bwrap starts is ever outside them.
  const [file, fileArgs] = cgroup
    ? ["/bin/sh", ["-c", JOIN_CGROUPS, "join-cgroups", String(cgroup.procsFiles.length), ...cgroup.procsFiles, options.bwrapPath, ...args]]
    : [options.bwrapPath, args];
  return {
    file,
    args: fileArgs,
    killTree: (pid) => {
      try {
        process.kill(-pid, "SIGKILL");
      } finally {
        cgroup?.killAll();
      }
    },
    release: async () => {
      await cgroup?.dispose();
      await proxy?.close();
      if (call.workspaceRoot !== undefined && !call.readOnlyWorkspace) await scrubSetIdBits(call.workspaceRoot);
      for (const mount of placement.mounts ?? []) if (mount.writable) await scrubSetIdBits(mount.source);
    },
    memoryKills: async () => (cgroup ? cgroup.memoryKills() : 0),
    networkRefused: () => [...(proxy?.refused ?? [])],
  };
}
