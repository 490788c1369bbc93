import { spawn } from "node:child_process";
import { ReinError } from "@rein/contracts";

export interface GitOptions {
  /** Directory git starts in; ignored for discovery when `gitDir` is given. */
  cwd?: string;
  /**
   * The repository to use, never discovered from the work tree: a run can
   * rewrite its workspace's `.git` file, and a discovered repository's config
   * (`core.fsmonitor`, hooks) would run programs outside the sandbox.
   */
  gitDir?: string;
  workTree?: string;
  input?: Buffer | string;
  /** Exit codes that are answers, not failures (`diff --quiet` exits 1 on a difference). */
  okCodes?: readonly number[];
}

export interface GitResult {
  stdout: Buffer;
  code: number;
}

/**
 * Settings on every call: no hooks (a pre-commit hook would run on what the
 * model wrote), no fsmonitor, and an identity for the commits Rein makes on the run's branch.
 */
const SAFE_SETTINGS = [
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.fsmonitor=false",
  "-c",
  "user.name=rein",
  "-c",
  "user.email=rein@localhost",
  "-c",
  "commit.gpgSign=false",
  "-c",
  "core.quotePath=false",
];

/** Runs git with a clean environment: no GIT_* variable of the caller's leaks in. */
export function git(args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith("GIT_")) env[name] = value;
  env.GIT_TERMINAL_PROMPT = "0";
  env.GIT_CONFIG_NOSYSTEM = "1";
  if (options.gitDir) env.GIT_DIR = options.gitDir;
  if (options.workTree) env.GIT_WORK_TREE = options.workTree;
  return new Promise((resolve, reject) => {
    const child = spawn("git", [...SAFE_SETTINGS, ...args], { cwd: options.cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("error", (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "ENOENT"
          ? new ReinError(
              "workspace_invalid",
              "git is not installed; running on a directory needs git (Debian/Ubuntu: apt-get install git)",
              { cause: error },
            )
          : error,
      );
    });
    child.on("close", (code) => {
      const exit = code ?? 1;
      if (exit === 0 || options.okCodes?.includes(exit)) {
        resolve({ stdout: Buffer.concat(stdout), code: exit });
        return;
      }
      const message = Buffer.concat(stderr).toString("utf8").trim() || `exit ${exit}`;
      reject(new ReinError("workspace_invalid", `git ${args.join(" ")} failed: ${message}`, { details: { exit } }));
    });
    child.stdin.on("error", () => {});
    child.stdin.end(options.input ?? "");
  });
}

export async function gitText(args: readonly string[], options: GitOptions = {}): Promise<string> {
  return (await git(args, options)).stdout.toString("utf8").trim();
}

/** Splits `-z` output into its NUL-terminated fields. */
export function nulFields(output: Buffer): string[] {
  const fields = output.toString("utf8").split("\0");
  if (fields.at(-1) === "") fields.pop();
  return fields;
}
