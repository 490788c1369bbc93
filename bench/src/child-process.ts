import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

const BENCH_ROOT = fileURLToPath(new URL("../", import.meta.url));

export interface BenchChild {
  child: ChildProcess;
  /** Resolves at the child's "ready" line; rejects with its output if it exits first. */
  ready: Promise<void>;
  /** Sends `message` (one line) on stdin and resolves with the next line it prints. */
  ask(message: string): Promise<string>;
  stop(): Promise<void>;
}

// A bench run under `node --cpu-prof` profiles its role processes too (node refuses the flag in NODE_OPTIONS).
const PROFILING_FLAGS = process.execArgv.filter((flag) => flag.startsWith("--cpu-prof"));

/** Starts `node --conditions=@rein/source --import tsx <script>` (the packages' sources) from bench/ with extra environment. */
export function spawnBenchChild(script: string, env: Record<string, string>, nodeFlags: readonly string[] = []): BenchChild {
  const child = spawn(
    process.execPath,
    [...PROFILING_FLAGS, ...nodeFlags, "--conditions=@rein/source", "--import", "tsx", fileURLToPath(new URL(script, import.meta.url))],
    {
      cwd: BENCH_ROOT,
      env: { ...process.env, ...env },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let output = "";
  let pending = "";
  const lines: string[] = [];
  const waiters: ((line: string) => void)[] = [];
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
    const parts = (pending + chunk).split("\n");
    pending = parts.pop() ?? "";
    for (const line of parts) {
      const waiter = waiters.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  const exited = once(child, "exit");
  const nextLine = () =>
    Promise.race([
      new Promise<string>((resolve) => {
        const line = lines.shift();
        if (line !== undefined) resolve(line);
        else waiters.push(resolve);
      }),
      exited.then(([code, signal]) => {
        throw new Error(`${script} exited (${String(code ?? signal)}):\n${output}`);
      }),
    ]);
  return {
    child,
    ready: nextLine().then((line) => {
      if (line !== "ready") throw new Error(`${script} printed "${line}" instead of "ready":\n${output}`);
    }),
    ask: async (message) => {
      child.stdin?.write(`${message}\n`);
      return nextLine();
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      await exited;
    },
  };
}
