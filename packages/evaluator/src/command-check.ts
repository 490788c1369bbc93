import { execFile } from "node:child_process";
import { basename } from "node:path";

export interface CommandOutcome {
  exitCode: number;
  output: string;
  /** The command was not run: it is not an allowlisted executable. */
  refused?: boolean;
}

const OUTPUT_CAP = 4_000;

/**
 * Runs an acceptance check's argv in the run's workspace: no shell, an
 * allowlisted executable, a scrubbed environment and a timeout.
 */
export function runCheckCommand(argv: readonly string[], cwd: string, allowed: readonly string[], timeoutMs = 60_000): Promise<CommandOutcome> {
  const [command, ...args] = argv;
  if (!command || !allowed.includes(command) || basename(command) !== command) {
    return Promise.resolve({ exitCode: -1, refused: true, output: `refused: ${command ?? "(empty)"} is not an allowlisted executable (${allowed.join(", ")})` });
  }
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd, shell: false, timeout: timeoutMs, maxBuffer: 1024 * 1024, env: { PATH: process.env.PATH ?? "", HOME: cwd, LANG: "C.UTF-8" } },
      (error, stdout, stderr) => {
        const output = `${stdout}${stderr}`.slice(-OUTPUT_CAP);
        if (!error) return resolve({ exitCode: 0, output });
        const code = typeof error.code === "number" ? error.code : -1;
        resolve({ exitCode: code, output: error.killed ? `timed out after ${timeoutMs} ms\n${output}` : output || error.message });
      },
    );
  });
}
