import type { Logger } from "@rein/guard";
import {
  type NetworkGrant,
  type Sandbox,
  type SandboxedProcess,
  splitLines,
  PendingRequests,
  logStderr,
  type KillCause,
  type SessionEnd,
  type SupervisedSession,
  supervisorError,
} from "@rein/sandbox";
import type { PluginManifest } from "./plugin-manifest.ts";
import { callLine, cancelLine, helloLine, type PluginCall, PluginMessage, type PluginResult, pingLine } from "./plugin-wire.ts";

/** Where a plugin's own directory appears inside the sandbox; it is the working directory. */
export const SANDBOX_PLUGIN_DIR = "/plugin";

export interface PluginSessionOptions {
  manifest: PluginManifest;
  /** The plugin's directory on the host (holds plugin.json). */
  dir: string;
  sandbox: Sandbox;
  workspaceRoot: string;
  /** The declared secrets the deployment binds to the plugin, by name. */
  env: Readonly<Record<string, string>>;
  network: readonly NetworkGrant[];
  /** Host directories covered inside the sandbox wherever its mounts would show them (the keys directory). */
  hidden: readonly string[];
  logger: Logger;
  /** @defaultValue 4 MiB */
  maxLineBytes?: number;
  /** Stderr bytes logged per process. @defaultValue 64 KiB */
  maxStderrBytes?: number;
}

/**
 * Starts a plugin in the sandbox and completes the handshake (`hello` →
 * `ready` naming exactly the tools plugin.json declares). The session
 * speaks the JSON-lines wire of docs/plugins.md: answers are matched to
 * calls by id; an unknown id is dropped and logged; any line that is not a
 * plugin message is a protocol error that kills the process and fails
 * every call in flight.
 */
export async function openPluginSession(
  options: PluginSessionOptions,
  signal: AbortSignal,
): Promise<SupervisedSession<PluginCall, PluginResult>> {
  const { manifest } = options;
  const logger = options.logger.child({ plugin: manifest.name });
  const child = await options.sandbox.start(manifest.command as [string, ...string[]], {
    workspaceRoot: options.workspaceRoot,
    mounts: [{ source: options.dir, target: SANDBOX_PLUGIN_DIR }],
    workingDirectory: SANDBOX_PLUGIN_DIR,
    env: options.env,
    network: options.network,
    hidden: options.hidden,
  });
  const session = new PluginSession(child, manifest, logger, options);
  const onAbort = () => session.kill("stopped");
  signal.addEventListener("abort", onAbort, { once: true });
  try {
    if (signal.aborted) onAbort();
    await session.handshake();
    return session;
  } catch (error) {
    session.kill("stopped");
    await session.exited;
    if (signal.aborted) {
      throw supervisorError(
        "start_failed",
        `plugin ${manifest.name} did not complete its handshake within ${manifest.start_timeout_ms} ms (start_timeout_ms); expected {"type":"ready"} after hello`,
        { cause: error },
      );
    }
    throw error;
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

class PluginSession implements SupervisedSession<PluginCall, PluginResult> {
  readonly exited: Promise<SessionEnd>;
  private readonly pending = new PendingRequests<PluginResult>();
  private readonly pings = new PendingRequests<undefined>();
  private readonly ready: Promise<void>;
  private markReady: (() => void) | undefined;
  private failHandshake: ((error: Error) => void) | undefined;
  private killedFor: KillCause | null = null;
  private protocolProblem: string | undefined;
  private unknownAnswers = 0;

  constructor(
    private readonly child: SandboxedProcess,
    private readonly manifest: PluginManifest,
    private readonly logger: Logger,
    options: PluginSessionOptions,
  ) {
    this.ready = new Promise<void>((resolve, reject) => {
      this.markReady = resolve;
      this.failHandshake = reject;
    });
    this.ready.catch(() => {});
    const stderr = logStderr(child.stderr, logger, options.maxStderrBytes ?? 64 * 1024);
    splitLines(
      child.stdout,
      options.maxLineBytes ?? 4 * 1024 * 1024,
      (line) => this.onLine(line),
      () => this.protocolError(`a stdout line longer than ${options.maxLineBytes ?? 4 * 1024 * 1024} bytes`),
    );
    this.exited = child.exited.then((exit) => {
      const how =
        exit.error ??
        (exit.killedBy === "memory_limit"
          ? "killed at its memory limit (sandboxLimits.memoryBytes)"
          : exit.signal
            ? `killed by ${exit.signal}`
            : `exit code ${exit.exitCode}`);
      const said = stderr.tail();
      const detail = this.protocolProblem ?? `${how}${said ? `; its last stderr: ${said}` : ""}`;
      const failure = this.endFailure(detail);
      this.failHandshake?.(failure);
      this.pending.failAll(failure);
      this.pings.failAll(failure);
      return { exitCode: exit.exitCode, signal: exit.signal, killedFor: this.killedFor, detail };
    });
  }

  /** What each call still waiting is told when the process ends. */
  private endFailure(detail: string) {
    const name = `plugin ${this.manifest.name}`;
    switch (this.killedFor) {
      case "protocol_error":
        return supervisorError("protocol_error", `${name} broke the wire protocol (${this.protocolProblem}); its process was killed`);
      case "deadline":
        return supervisorError("crashed", `${name}'s process was killed because a call passed its deadline`);
      case "unhealthy":
        return supervisorError("unhealthy", `${name}'s process was killed after it failed a health check`);
      case "stopped":
      case "idle":
        return supervisorError("stopped", `${name}'s process was stopped`);
      default:
        return supervisorError("crashed", `${name}'s process ended before answering (${detail})`);
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  async handshake(): Promise<void> {
    this.child.stdin.write(helloLine());
    await this.ready;
  }

  call(request: PluginCall, options: { deadlineMs: number; signal?: AbortSignal }): Promise<PluginResult> {
    if (this.killedFor) return Promise.reject(this.endFailure("it was being stopped"));
    const { signal } = options;
    if (signal?.aborted)
      return Promise.reject(supervisorError("aborted", `the call to plugin ${this.manifest.name} was abandoned before it was sent`));
    const { id, answer } = this.pending.open();
    this.child.stdin.write(callLine(id, request, options.deadlineMs));
    if (signal) {
      // An abandoned call is cancelled in the plugin too, so its work stops rather than running on unseen;
      // an answer the plugin still sends settles a promise no one waits for.
      const cancel = () => {
        if (!this.killedFor && this.child.stdin.writable) this.child.stdin.write(cancelLine(id));
      };
      signal.addEventListener("abort", cancel, { once: true });
      answer.then(
        () => signal.removeEventListener("abort", cancel),
        () => signal.removeEventListener("abort", cancel),
      );
    }
    return answer;
  }

  ping(timeoutMs: number): Promise<void> {
    const { id, answer } = this.pings.open();
    this.child.stdin.write(pingLine(id));
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pings.forget(id);
        reject(supervisorError("unhealthy", `plugin ${this.manifest.name} did not answer a ping within ${timeoutMs} ms`));
      }, timeoutMs);
      answer.then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        (error: Error) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }

  /** Said with a deadline error, so the person reading it knows a wrong id was the reason. */
  describeHang(): string | undefined {
    return this.unknownAnswers > 0 ? `it sent ${this.unknownAnswers} answer(s) with an id Rein never asked for` : undefined;
  }

  kill(cause: KillCause): void {
    this.killedFor ??= cause;
    this.child.killTree();
  }

  private onLine(line: string): void {
    if (line.trim() === "") return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.protocolError(`stdout line is not JSON: ${preview(line)}`);
      return;
    }
    const parsed = PluginMessage.safeParse(json);
    if (!parsed.success) {
      this.protocolError(`stdout line is not a plugin message (expected type ready, result, pong or log): ${preview(line)}`);
      return;
    }
    const message = parsed.data;
    switch (message.type) {
      case "ready":
        this.onReady(message.tools);
        return;
      case "result":
        if (!this.pending.settle(message.id, message)) {
          this.unknownAnswers += 1;
          this.logger.warn(
            { id: preview(message.id) },
            "plugin answered an id with no call waiting (late or unknown); the answer was dropped",
          );
        }
        return;
      case "pong":
        if (message.id === undefined || !this.pings.settle(message.id, undefined))
          this.logger.debug("plugin sent a pong nobody waited for");
        return;
      case "log":
        this.logger[message.level]({ pluginLog: message.message.slice(0, 2_000) }, "plugin log");
    }
  }

  private onReady(tools: readonly string[]): void {
    if (!this.markReady) {
      this.protocolError("it said ready a second time");
      return;
    }
    const declared = this.manifest.tools.map((tool) => tool.name).sort();
    const offered = [...tools].sort();
    if (declared.join("\n") !== offered.join("\n")) {
      this.protocolError(`ready named tools [${offered.join(", ")}], but plugin.json declares [${declared.join(", ")}]`);
      return;
    }
    const markReady = this.markReady;
    this.markReady = undefined;
    this.failHandshake = undefined;
    markReady();
  }

  private protocolError(problem: string): void {
    if (this.protocolProblem) return;
    this.protocolProblem = problem;
    this.logger.warn({ problem }, "plugin broke the wire protocol; killing it");
    this.failHandshake?.(
      supervisorError("protocol_error", `plugin ${this.manifest.name} broke the wire protocol during its handshake: ${problem}`),
    );
    this.kill("protocol_error");
  }
}

function preview(text: string): string {
  // JSON.stringify escapes control characters, so the log line and the message stay one printable line.
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}
