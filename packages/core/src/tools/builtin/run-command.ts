import { spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import { z } from "zod";
import { ReinError } from "../../errors.ts";
import { defineTool } from "../define-tool.ts";
import type { BuiltinToolOptions } from "./builtin-options.ts";

export interface CommandResult {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  timedOut: boolean;
}

/**
 * `run_command`: starts one allowlisted executable with an argv array. There
 * is never a shell (`shell: false`), so `;`, `|`, `$(…)` and quotes in args
 * are plain characters handed to the program. The environment is scrubbed
 * to PATH, HOME (the workspace) and LANG, so no credential of the host
 * process leaks into the child.
 */
export function runCommandTool(options: BuiltinToolOptions) {
  const allowed = [...(options.commands ?? [])];
  const maxOutput = options.maxCommandOutputBytes ?? 1024 * 1024;
  const maxTimeout = options.commandTimeoutMs ?? 60_000;
  return defineTool({
    name: "run_command",
    description: `Run one program in the workspace with an argument array; no shell, so pipes, redirects and ; do not work. Allowed programs: ${allowed.length > 0 ? allowed.join(", ") : "(none)"}. Returns the exit code, stdout and stderr. It can change files in the workspace.`,
    effect: "destructive",
    input: z
      .object({
        command: z.string().min(1).describe("the program name exactly as allowlisted, e.g. node"),
        args: z.array(z.string()).max(256).default([]),
        cwd: z.string().min(1).default("."),
        timeoutMs: z.number().int().positive().max(maxTimeout).optional(),
      })
      .strict(),
    // The child may outlive a soft timeout by a moment while it is killed.
    timeoutMs: maxTimeout + 5_000,
    scope: (args) => ({ commands: [args.command], paths: [args.cwd] }),
    async run(args, context): Promise<CommandResult> {
      if (!allowed.includes(args.command)) {
        throw new ReinError(
          "tool_refused",
          `${JSON.stringify(args.command)} is not an allowed program; expected one of: ${allowed.join(", ") || "(none)"}`,
        );
      }
      const cwd = await context.workspace.resolve(args.cwd);
      if (!(await stat(cwd)).isDirectory()) throw new ReinError("tool_failed", `cwd ${args.cwd} is not a directory`);
      return spawnCaptured(args.command, args.args, {
        cwd,
        env: { PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin", HOME: context.workspace.root, LANG: "C.UTF-8" },
        timeoutMs: args.timeoutMs ?? maxTimeout,
        maxOutput,
        signal: context.signal,
      });
    },
    render: (result) =>
      [
        `exit code: ${result.exitCode ?? "none"}${result.signal ? ` (killed by ${result.signal}${result.timedOut ? " after timeout" : ""})` : ""}`,
        `--- stdout${result.stdoutTruncated ? " (truncated)" : ""} ---`,
        result.stdout,
        `--- stderr${result.stderrTruncated ? " (truncated)" : ""} ---`,
        result.stderr,
      ].join("\n"),
  });
}

function spawnCaptured(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; maxOutput: number; signal: AbortSignal },
): Promise<CommandResult> {
  return new Promise((resolvePromise, reject) => {
    // detached: the child leads its own process group, so a kill reaches its children too.
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, shell: false, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const stdout = capture(options.maxOutput);
    const stderr = capture(options.maxOutput);
    child.stdout.on("data", stdout.push);
    child.stderr.on("data", stderr.push);
    let timedOut = false;
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, options.timeoutMs);
    const onAbort = () => kill();
    options.signal.addEventListener("abort", onAbort, { once: true });
    const cleanup = () => {
      clearTimeout(timer);
      options.signal.removeEventListener("abort", onAbort);
    };
    child.on("error", (error: NodeJS.ErrnoException) => {
      cleanup();
      reject(
        error.code === "ENOENT"
          ? new ReinError("tool_failed", `program ${JSON.stringify(command)} was not found on PATH`, { cause: error })
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
        timedOut,
      });
    });
  });
}

/** Keeps the first `max` bytes of a stream and counts the rest. */
function capture(max: number) {
  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = 0;
  return {
    push: (chunk: Buffer) => {
      const room = max - kept;
      if (room > 0) {
        const piece = chunk.subarray(0, room);
        chunks.push(piece);
        kept += piece.length;
      }
      dropped += Math.max(0, chunk.length - Math.max(room, 0));
    },
    text: () => new TextDecoder().decode(Buffer.concat(chunks)).replace(/\uFFFD+$/, ""),
    truncated: () => dropped > 0,
  };
}
