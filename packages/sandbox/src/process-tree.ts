import { spawn } from "node:child_process";
import { ReinError } from "@rein/contracts";
import { captureOutput } from "./output-capture.ts";
import type { KillReason, ProcessExit, SandboxedProcess, SandboxResult } from "./sandbox.ts";
import type { SandboxKind } from "./sandbox-config.ts";

/** A process writing this many times its output cap is killed rather than drained until its timeout. */
const OUTPUT_KILL_FACTOR = 8;

export interface ProcessTreeOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  sandbox: SandboxKind;
  /** Kills everything the process started; @defaultValue SIGKILL to its process group */
  killTree?: (pid: number) => void;
}

/**
 * Spawns `file` in a process group of its own, captures its output up to a
 * cap, and kills the whole tree on timeout, abort or runaway output. Resolves
 * once the process and every holder of its pipes are gone.
 */
export function runProcessTree(file: string, args: readonly string[], options: ProcessTreeOptions): Promise<SandboxResult> {
  return new Promise((resolvePromise, reject) => {
    if (options.signal?.aborted) {
      reject(new ReinError("tool_failed", `${file} was not started: the call was aborted`));
      return;
    }
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: options.env,
      shell: false,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout = captureOutput(options.maxOutputBytes);
    const stderr = captureOutput(options.maxOutputBytes);
    let killedBy: KillReason | null = null;
    const kill = (reason: KillReason) => {
      killedBy ??= reason;
      if (child.pid === undefined) return;
      try {
        (options.killTree ?? killGroup)(child.pid);
      } catch {
        child.kill("SIGKILL");
      }
    };
    const outputLimit = options.maxOutputBytes * OUTPUT_KILL_FACTOR;
    const onData = (capture: ReturnType<typeof captureOutput>) => (chunk: Buffer) => {
      capture.push(chunk);
      if (capture.totalBytes() > outputLimit && killedBy === null) kill("output_limit");
    };
    child.stdout.on("data", onData(stdout));
    child.stderr.on("data", onData(stderr));
    const timer = setTimeout(() => kill("timeout"), options.timeoutMs);
    const onAbort = () => kill("aborted");
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const cleanup = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    };
    child.on("error", (error: NodeJS.ErrnoException) => {
      cleanup();
      reject(
        error.code === "ENOENT"
          ? new ReinError("tool_failed", `program ${JSON.stringify(file)} was not found on PATH`, { cause: error })
          : error,
      );
    });
    child.on("close", (exitCode, signal) => {
      cleanup();
      resolvePromise({
        exitCode,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        stdoutTruncated: stdout.truncated(),
        stderrTruncated: stderr.truncated(),
        timedOut: killedBy === "timeout",
        killedBy,
        sandbox: options.sandbox,
        networkRefused: [],
      });
    });
  });
}

function killGroup(pid: number): void {
  process.kill(-pid, "SIGKILL");
}

export interface LiveProcessOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** @defaultValue SIGKILL to its process group */
  killTree?: (pid: number) => void;
  /** Runs once the process is gone (release a cgroup, close a proxy); `exited` waits for it. */
  release?: () => Promise<void>;
}

/**
 * Spawns `file` in a process group of its own with pipes on stdin, stdout
 * and stderr, and leaves it running. `killTree` ends the whole group;
 * `exited` resolves once the process and every holder of its pipes are gone.
 */
export function startProcessTree(file: string, args: readonly string[], options: LiveProcessOptions): SandboxedProcess {
  const child = spawn(file, args, { cwd: options.cwd, env: options.env, shell: false, detached: true, stdio: ["pipe", "pipe", "pipe"] });
  // A write to a process that just died fails with EPIPE; its end is reported through `exited`.
  child.stdin.on("error", () => {});
  let spawnError: string | undefined;
  const exited = new Promise<ProcessExit>((resolveExit) => {
    const finish = (exit: ProcessExit) => {
      void (options.release?.() ?? Promise.resolve()).catch(() => {}).then(() => resolveExit(exit));
    };
    child.on("error", (error: NodeJS.ErrnoException) => {
      spawnError = error.code === "ENOENT" ? `program ${JSON.stringify(file)} was not found` : error.message;
      if (child.pid === undefined) finish({ exitCode: null, signal: null, error: spawnError });
    });
    child.on("close", (exitCode, signal) => finish({ exitCode, signal, ...(spawnError ? { error: spawnError } : {}) }));
  });
  let killed = false;
  return {
    pid: child.pid,
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr,
    exited,
    killTree() {
      if (killed || child.pid === undefined) return;
      killed = true;
      try {
        (options.killTree ?? killGroup)(child.pid);
      } catch {
        child.kill("SIGKILL");
      }
    },
  };
}
