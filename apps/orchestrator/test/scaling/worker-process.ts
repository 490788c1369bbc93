import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

const ENTRY = fileURLToPath(new URL("./step-worker-entry.ts", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

export interface WorkerProcess {
  name: string;
  concurrency: number;
  child: ChildProcess;
  pid: number;
  /** Resolves with how the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves when the process has printed `line` on stdout. */
  printed(line: string): Promise<void>;
  /** Everything it wrote, for a failing test's message. */
  output(): string;
}

/** Starts one step worker as its own Node process, the way an operator would on another machine. */
export function spawnWorkerProcess(name: string, concurrency: number, env: Record<string, string>, entry = ENTRY): WorkerProcess {
  const child = spawn(process.execPath, ["--conditions=@rein/source", "--import", "tsx", entry], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, SCALING_CONCURRENCY: String(concurrency) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiters: { line: string; resolve: () => void }[] = [];
  let log = "";
  let partial = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    log += chunk;
    const parts = (partial + chunk).split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts) {
      lines.push(line);
      for (const waiter of waiters.filter((candidate) => candidate.line === line)) waiter.resolve();
    }
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    log += chunk;
  });
  const exited = once(child, "exit").then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
  if (child.pid === undefined) throw new Error(`worker ${name} did not start`);
  return {
    name,
    concurrency,
    child,
    pid: child.pid,
    exited,
    printed: (line) =>
      lines.includes(line)
        ? Promise.resolve()
        : Promise.race([
            new Promise<void>((resolve) => waiters.push({ line, resolve })),
            exited.then(({ code, signal }) => {
              throw new Error(`worker ${name} exited (${code ?? signal}) before printing "${line}":\n${log}`);
            }),
          ]),
    output: () => log,
  };
}
