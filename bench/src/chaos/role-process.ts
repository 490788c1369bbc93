import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const REIN_BIN = fileURLToPath(new URL("../../../apps/orchestrator/bin/rein.js", import.meta.url));
/** What `rein serve` and `rein worker` print once their consumers are listening. */
const READY = / running against /;

export interface RoleProcess {
  name: string;
  pid: number;
  child: ChildProcess;
  /** Resolves once the process says its roles are running; rejects if it exits first or within `timeoutMs`. */
  ready: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  alive(): boolean;
  signal(signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts one role the way an operator does: `rein serve` or `rein worker
 * --role …` as its own process, its stderr and stdout kept in `<logDir>/<name>.log`.
 */
export function spawnRole(name: string, args: readonly string[], options: { logDir: string; env: Record<string, string>; timeoutMs?: number }): RoleProcess {
  const child = spawn(process.execPath, [REIN_BIN, ...args], { env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
  if (child.pid === undefined) throw new Error(`chaos: ${name} did not start`);
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
    const timer = setTimeout(() => reject(new Error(`chaos: ${name} did not report ready within ${timeoutMs} ms; see ${name}.log`)), timeoutMs);
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
  return {
    name,
    pid: child.pid,
    child,
    ready,
    exited,
    alive,
    signal: async (signal) => {
      if (alive()) child.kill(signal);
      return exited;
    },
  };
}
