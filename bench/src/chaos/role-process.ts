import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { within } from "./within.ts";

const REIN_BIN = fileURLToPath(new URL("../../../apps/orchestrator/bin/rein.js", import.meta.url));
/** What `rein serve` and `rein worker` print once their consumers are listening. */
const READY = / running against /;

/** How a signalled process ended; `forced` when it outlived its grace and was SIGKILLed. */
export interface RoleExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  forced: boolean;
}

/** How long a process may take to exit after SIGTERM before it is SIGKILLed. */
const DEFAULT_GRACE_MS = 30_000;
/** How long the kernel may take to reap a SIGKILLed process; past it, something is badly wrong. */
const KILL_WAIT_MS = 10_000;

export interface RoleProcess {
  name: string;
  pid: number;
  child: ChildProcess;
  /** Resolves once the process says its roles are running; rejects if it exits first or within `timeoutMs`. */
  ready: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  alive(): boolean;
  /**
   * Sends `signal` and waits for the exit, bounded: a process still there
   * `graceMs` after SIGTERM (default 30 s) is SIGKILLed, and one that
   * outlives a SIGKILL by 10 s is an error naming it.
   */
  signal(signal: NodeJS.Signals, options?: { graceMs?: number }): Promise<RoleExit>;
}

/**
 * Starts one role the way an operator does: `rein serve` or `rein worker
 * --role …` as its own process, its stderr and stdout kept in `<logDir>/<name>.log`.
 */
export function spawnRole(
  name: string,
  args: readonly string[],
  options: { logDir: string; env: Record<string, string>; timeoutMs?: number },
): RoleProcess {
  const child = spawn(process.execPath, [REIN_BIN, ...args], {
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return superviseRole(name, child, options);
}

/** Watches a started role process: its log, when it is ready, and how it ends. */
export function superviseRole(name: string, child: ChildProcess, options: { logDir: string; timeoutMs?: number }): RoleProcess {
  const { pid } = child;
  if (pid === undefined) throw new Error(`chaos: ${name} did not start`);
  const log = createWriteStream(join(options.logDir, `${name}.log`), { flags: "a" });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const exited = once(child, "exit").then(([code, signal]) => {
    log.end();
    return { code: code as number | null, signal: signal as NodeJS.Signals | null };
  });
  // A bound, not an expectation: with the machine's load average at 30 on 2 cores a step worker took
  // 30 s to start and sometimes more than 60 s, and the suite gave up on a healthy process.
  const timeoutMs = options.timeoutMs ?? 180_000;
  const ready = new Promise<void>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(
      () => reject(new Error(`chaos: ${name} did not report ready within ${timeoutMs} ms; see ${name}.log`)),
      timeoutMs,
    );
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      seen = (seen + chunk).slice(-4_000);
      if (READY.test(seen)) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`chaos: ${name} exited (${code ?? signal}) before it was ready:\n${seen}`));
    });
  });
  ready.catch(() => {});
  const alive = () => child.exitCode === null && child.signalCode === null;
  const exitWithin = (ms: number) => within(`${name} (pid ${pid}) exiting`, ms, exited).catch(() => undefined);
  return {
    name,
    pid,
    child,
    ready,
    exited,
    alive,
    signal: async (signal, signalOptions = {}) => {
      if (alive()) child.kill(signal);
      const graceMs = signal === "SIGKILL" ? KILL_WAIT_MS : (signalOptions.graceMs ?? DEFAULT_GRACE_MS);
      const ended = await exitWithin(graceMs);
      if (ended) return { ...ended, forced: false };
      if (signal !== "SIGKILL") {
        child.kill("SIGKILL");
        const killed = await exitWithin(KILL_WAIT_MS);
        if (killed) return { ...killed, forced: true };
      }
      throw new Error(
        `chaos: ${name} (pid ${pid}) did not exit within ${graceMs} ms of ${signal}${signal === "SIGKILL" ? "" : ` nor ${KILL_WAIT_MS} ms of the SIGKILL after it`}; see ${name}.log`,
      );
    },
  };
}
