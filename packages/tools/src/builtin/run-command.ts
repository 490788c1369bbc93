import { stat } from "node:fs/promises";
import { relative } from "node:path";
import { z } from "zod";
import { ReinError } from "@rein/contracts";
import { escapeGlob, formatHostPort, type HostPort, parseHostPort, hostMatches } from "@rein/guard";
import { type NetworkGrant, resolveSandbox, type SandboxResult, SandboxLimits } from "@rein/sandbox";
import { defineTool } from "../define-tool.ts";
import type { BuiltinToolOptions } from "./builtin-options.ts";

/** What a command did, and inside which boundary (`sandbox`). */
export type CommandResult = SandboxResult;

/** Documented bounds of `run_command`'s arguments (issue 10 item 7). */
export const RUN_COMMAND_LIMITS = {
  /** An allowlisted program's name. */
  commandChars: 128,
  /** One argument; a `node -e` script fits. */
  argChars: 16_384,
  args: 256,
  /** All arguments together, well under the kernel's ARG_MAX. */
  totalArgBytes: 262_144,
  cwdChars: 1024,
  hosts: 16,
  hostChars: 260,
} as const;

const HOST_PORT = /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:\d{1,5})?$/;

export interface RunCommandVariant {
  /**
   * The acceptance-check principal: the workspace is mounted read-only and
   * there is no network. Its effect is still run_command's: a program can
   * do harm without writing the workspace (print a secret, burn CPU), so
   * the policy decides a check by the command it runs, as for a worker.
   * @defaultValue false
   */
  readOnly?: boolean;
}

/**
 * `run_command`: starts one allowlisted executable with an argv array inside
 * the sandbox config `sandbox` selects (see docs/sandbox.md). There is never
 * a shell, so `;`, `|`, `$(…)` and quotes in args are plain characters
 * handed to the program. The environment is exactly PATH, HOME (the
 * workspace), LANG and the secrets config binds to this tool.
 */
export function runCommandTool(options: BuiltinToolOptions, variant: RunCommandVariant = {}) {
  const allowed = [...(options.commands ?? [])];
  const maxOutput = options.maxCommandOutputBytes ?? 1024 * 1024;
  const maxTimeout = options.commandTimeoutMs ?? 60_000;
  const limits = SandboxLimits.parse(options.sandboxLimits ?? {});
  const readOnly = variant.readOnly ?? false;
  const allowedHosts = [...(options.hosts ?? [])];
  const L = RUN_COMMAND_LIMITS;
  return defineTool({
    name: "run_command",
    description: readOnly
      ? `Run one program in a read-only copy of the workspace with an argument array; no shell and no network. Allowed programs: ${allowed.join(", ") || "(none)"}.`
      : `Run one program in the workspace with an argument array; no shell, so pipes, redirects and ; do not work. No network unless you list the hosts it needs in hosts. Allowed programs: ${allowed.length > 0 ? allowed.join(", ") : "(none)"}. Returns the exit code, stdout and stderr. It can change files in the workspace.`,
    effect: "destructive",
    // A check's result depends on the workspace of the moment; it is never served from a cache.
    idempotent: false,
    input: z
      .object({
        command: z.string().min(1).max(L.commandChars).describe("the program name exactly as allowlisted, e.g. node"),
        args: z
          .array(z.string().max(L.argChars))
          .max(L.args)
          .refine((args) => args.reduce((sum, arg) => sum + Buffer.byteLength(arg), 0) <= L.totalArgBytes, {
            message: `the arguments together must be at most ${L.totalArgBytes} bytes`,
          })
          .default([]),
        cwd: z.string().min(1).max(L.cwdChars).default("."),
        hosts: z
          .array(
            z
              .string()
              .max(L.hostChars)
              .regex(HOST_PORT, "expected a host name or host:port, e.g. registry.npmjs.org or api.example.com:8443"),
          )
          .max(L.hosts)
          .optional()
          .describe(
            "hosts the program must reach (through a proxy; HTTP_PROXY is set); a bare host means ports 80 and 443. Without it the program has no network.",
          ),
        timeoutMs: z.number().int().positive().max(maxTimeout).optional(),
      })
      .strict(),
    // The child may outlive a soft timeout by a moment while it is killed.
    timeoutMs: maxTimeout + 5_000,
    scope: (args) => ({
      commands: [args.command],
      paths: [escapeGlob(args.cwd)],
      ...(args.hosts ? { hosts: destinationsOf(args.hosts).map(formatHostPort) } : {}),
    }),
    async run(args, context): Promise<CommandResult> {
      if (!allowed.includes(args.command)) {
        throw new ReinError(
          "tool_refused",
          `${JSON.stringify(args.command)} is not an allowed program; expected one of: ${allowed.join(", ") || "(none)"}`,
        );
      }
      const network = networkGrants(args.hosts ?? [], allowedHosts, readOnly);
      const sandbox = await resolveSandbox(options.sandbox ?? "auto", { limits, bwrapPath: options.bwrapPath });
      const cwd = await context.workspace.resolve(args.cwd);
      if (!(await stat(cwd)).isDirectory()) throw new ReinError("tool_failed", `cwd ${args.cwd} is not a directory`);
      // Exactly the secrets config binds to run_command (config secrets[].tools).
      const env = { ...context.secrets.bound() };
      return sandbox.run([args.command, ...args.args], {
        workspaceRoot: context.workspace.root,
        cwd: relative(context.workspace.root, cwd) || ".",
        readOnlyWorkspace: readOnly,
        env,
        network,
        timeoutMs: args.timeoutMs ?? maxTimeout,
        maxOutputBytes: maxOutput,
        signal: context.signal,
      });
    },
    render: renderCommandResult,
    traceFields: (result) => ({
      sandbox: result.sandbox,
      exitCode: result.exitCode,
      killedBy: result.killedBy,
      networkRefused: result.networkRefused.length > 0 ? result.networkRefused.slice(0, 20).join(", ") : null,
    }),
  });
}

/** A bare host means its HTTP and HTTPS ports. */
function destinationsOf(entries: readonly string[]): HostPort[] {
  return entries.flatMap((entry) => {
    const parsed = parseHostPort(entry);
    return parsed.port === undefined
      ? [
          { host: parsed.host, port: 80 },
          { host: parsed.host, port: 443 },
        ]
      : [parsed];
  });
}

/**
 * The host:port pairs a call may reach: each must be on the deployment's
 * allowlist (config `tools.hosts`, as for `http_request`); the executor has
 * already checked them against the step's grant.
 */
function networkGrants(requested: readonly string[], allowed: readonly string[], readOnly: boolean): NetworkGrant[] {
  if (requested.length === 0) return [];
  if (readOnly) throw new ReinError("tool_refused", "an acceptance check gets no network; expected no hosts");
  return destinationsOf(requested).map((destination) => {
    const named = formatHostPort(destination);
    if (!allowed.some((pattern) => hostMatches(pattern, named))) {
      throw new ReinError("tool_refused", `${named} is not allowed; expected one of: ${allowed.join(", ") || "(none)"}`);
    }
    return { host: destination.host, port: destination.port ?? 443 };
  });
}

export function renderCommandResult(result: CommandResult): string {
  const killed = result.killedBy ? `; killed by the runtime ${KILL_REASONS[result.killedBy]}` : "";
  return [
    `exit code: ${result.exitCode ?? "none"}${result.signal ? ` (signal ${result.signal})` : ""}${killed}`,
    `sandbox: ${result.sandbox}${result.networkRefused.length > 0 ? `; network refused: ${result.networkRefused.join(", ")}` : ""}`,
    `--- stdout${result.stdoutTruncated ? " (truncated)" : ""} ---`,
    result.stdout,
    `--- stderr${result.stderrTruncated ? " (truncated)" : ""} ---`,
    result.stderr,
  ].join("\n");
}

const KILL_REASONS = {
  timeout: "after timeout",
  aborted: "because the step was aborted",
  output_limit: "after writing too much output",
  memory_limit: "after its processes went past their memory limit (sandboxLimits.memoryBytes)",
} as const;
