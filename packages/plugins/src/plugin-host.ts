import { errorMessage } from "@rein/contracts";
import type { TraceEventBody } from "@rein/trace";
import { type Logger, parseHostPort, type SecretBindings } from "@rein/guard";
import {
  type Sandbox,
  type SandboxKind,
  type BreakerChange,
  CircuitBreaker,
  type CircuitBreakerOptions,
  ProcessSupervisor,
  type SupervisorEvent,
  type SupervisorOptions,
  type SupervisorStatus,
} from "@rein/sandbox";
import type { TraceSink } from "@rein/tools";
import type { LoadedPlugin } from "./load-plugin.ts";
import { openPluginSession } from "./plugin-session.ts";
import type { PluginCall, PluginResult } from "./plugin-wire.ts";

/** The trace event a supervisor event is recorded as, with the plugin and its sandbox. */
function supervisorTraceBody(event: SupervisorEvent, process: { plugin: string; sandbox: string | null }): TraceEventBody {
  switch (event.kind) {
    case "process.started": {
      const { kind: _kind, name: _name, ...fields } = event;
      return { kind: "plugin.process_started", payload: { ...process, ...fields } };
    }
    case "process.start_failed": {
      const { kind: _kind, name: _name, ...fields } = event;
      return { kind: "plugin.process_start_failed", payload: { ...process, ...fields } };
    }
    case "process.exited": {
      const { kind: _kind, name: _name, ...fields } = event;
      return { kind: "plugin.process_exited", payload: { ...process, ...fields } };
    }
  }
}

/** Supervision settings a host passes to each of its plugin's supervisors (tests shorten them). */
export type PluginSupervision = Pick<
  SupervisorOptions<PluginCall, PluginResult>,
  "pingIntervalMs" | "pingTimeoutMs" | "backoff" | "idleMs"
> & {
  breaker?: Omit<CircuitBreakerOptions, "onChange" | "now">;
};

export interface PluginHostOptions {
  /** The run sandbox (config `sandbox`), resolved on first start. */
  sandbox: () => Promise<Sandbox>;
  /** Host directories its processes never see, even inside its directory or the workspace: the keys directory. */
  hidden?: readonly string[];
  /** The deployment's secrets; the plugin gets those it declares that are bound to `plugin:<name>`. */
  secrets: SecretBindings;
  logger: Logger;
  /** Where breaker changes and process starts and exits are traced, in the run whose call saw them. */
  trace?: TraceSink;
  supervision?: PluginSupervision;
}

/** Which run and step a call belongs to, for tracing what the plugin's processes do. */
export interface PluginCallSite {
  runId: string;
  stepId: string;
  workspaceRoot: string;
  signal?: AbortSignal;
}

export interface PluginStatus {
  name: string;
  version: string;
  mode: "persistent" | "per_call";
  tools: string[];
  breaker: ReturnType<CircuitBreaker["state"]>;
  /** Failures inside the breaker's window. */
  recentFailures: number;
  restarts: number;
  /** One entry per run with a process (or a start under way). */
  processes: Array<{ runId: string } & SupervisorStatus>;
}

/** Idle persistent processes of a run are stopped after this, so a finished run leaves none. */
const DEFAULT_IDLE_MS = 60_000;

/**
 * One plugin in a Rein process: its circuit breaker (shared by all runs) and
 * one supervisor per run, because a plugin's process lives in that run's
 * sandbox with that run's workspace. Processes of a run stop when idle.
 */
export class PluginHost {
  readonly breaker: CircuitBreaker;
  private readonly supervisors = new Map<string, { runId: string; supervisor: ProcessSupervisor<PluginCall, PluginResult> }>();
  private lastSite: PluginCallSite | undefined;
  private sandboxKind: SandboxKind | undefined;
  private restartsOfEnded = 0;

  constructor(
    readonly plugin: LoadedPlugin,
    private readonly options: PluginHostOptions,
  ) {
    this.breaker = new CircuitBreaker({
      failureThreshold: 3,
      windowMs: 60_000,
      openMs: 30_000,
      ...options.supervision?.breaker,
      onChange: (change) => this.onBreakerChange(change),
    });
  }

  get name(): string {
    return this.plugin.manifest.name;
  }

  /** The boundary its processes run in, once one has started. */
  get sandbox(): SandboxKind | undefined {
    return this.sandboxKind;
  }

  /** Calls one tool in the run's process (started if need be) with the tool's deadline. */
  async call(tool: string, args: unknown, site: PluginCallSite): Promise<PluginResult> {
    this.lastSite = site;
    const spec = this.plugin.manifest.tools.find((candidate) => candidate.name === tool);
    const deadlineMs = spec?.timeout_ms ?? 30_000;
    const supervisor = this.supervisorFor(site);
    try {
      return await supervisor.call({ tool, args }, { deadlineMs, signal: site.signal });
    } finally {
      // A per-call plugin keeps no process between calls: its run's supervisor goes once nothing waits on it.
      if (this.plugin.manifest.mode === "per_call") this.forgetWhenIdle(site.workspaceRoot, supervisor);
    }
  }

  private forgetWhenIdle(key: string, supervisor: ProcessSupervisor<PluginCall, PluginResult>): void {
    const status = supervisor.status();
    if (status.inFlight > 0 || status.queued > 0 || this.supervisors.get(key)?.supervisor !== supervisor) return;
    this.restartsOfEnded += status.restarts;
    this.supervisors.delete(key);
    void supervisor.close();
  }

  /**
   * Starts the plugin once in an empty workspace, completes the handshake
   * and a ping, and stops it: what `start: role_start` and `rein plugins
   * check` use to prove it can serve before a run depends on it.
   */
  async probe(workspaceRoot: string): Promise<{ pid: number | undefined; pingMs: number }> {
    const sandbox = await this.options.sandbox();
    const session = await openPluginSession(
      this.sessionOptions(sandbox, workspaceRoot),
      AbortSignal.timeout(this.plugin.manifest.start_timeout_ms),
    );
    try {
      const started = performance.now();
      await session.ping(this.options.supervision?.pingTimeoutMs ?? 5_000);
      return { pid: session.pid, pingMs: Math.round(performance.now() - started) };
    } finally {
      session.kill("stopped");
      await session.exited;
    }
  }

  status(): PluginStatus {
    const processes = [...this.supervisors.values()].map(({ runId, supervisor }) => ({ runId, ...supervisor.status() }));
    return {
      name: this.name,
      version: this.plugin.manifest.version,
      mode: this.plugin.manifest.mode,
      tools: this.plugin.manifest.tools.map((tool) => tool.name),
      breaker: this.breaker.state(),
      recentFailures: this.breaker.recentFailures(),
      restarts: this.restartsOfEnded + processes.reduce((sum, process) => sum + process.restarts, 0),
      processes,
    };
  }

  async close(): Promise<void> {
    const all = [...this.supervisors.values()];
    this.supervisors.clear();
    await Promise.all(all.map(({ supervisor }) => supervisor.close()));
  }

  private supervisorFor(site: PluginCallSite): ProcessSupervisor<PluginCall, PluginResult> {
    const known = this.supervisors.get(site.workspaceRoot);
    if (known) return known.supervisor;
    const { manifest } = this.plugin;
    const supervisor = new ProcessSupervisor<PluginCall, PluginResult>({
      name: `plugin ${manifest.name}`,
      mode: manifest.mode,
      concurrency: manifest.concurrency,
      queueLimit: manifest.queue_limit,
      startTimeoutMs: manifest.start_timeout_ms,
      idleMs: DEFAULT_IDLE_MS,
      ...this.options.supervision,
      breaker: this.breaker,
      logger: this.options.logger,
      open: async (signal) => {
        const sandbox = await this.options.sandbox();
        this.sandboxKind = sandbox.kind;
        return openPluginSession(this.sessionOptions(sandbox, site.workspaceRoot), signal);
      },
      onEvent: (event) => this.onSupervisorEvent(site.runId, event, supervisor),
    });
    this.supervisors.set(site.workspaceRoot, { runId: site.runId, supervisor });
    return supervisor;
  }

  private sessionOptions(sandbox: Sandbox, workspaceRoot: string) {
    const { manifest } = this.plugin;
    const bound = this.options.secrets.boundTo(`plugin:${manifest.name}`);
    const env: Record<string, string> = {};
    for (const name of manifest.env) {
      const value = bound[name];
      if (value !== undefined) env[name] = value;
    }
    const network = manifest.hosts.map((entry) => {
      const { host, port } = parseHostPort(entry);
      return { host, port: port ?? 443 };
    });
    return {
      manifest,
      dir: this.plugin.dir,
      sandbox,
      workspaceRoot,
      env,
      network,
      hidden: this.options.hidden ?? [],
      logger: this.options.logger,
    };
  }

  private onSupervisorEvent(runId: string, event: SupervisorEvent, supervisor: ProcessSupervisor<PluginCall, PluginResult>): void {
    const { kind, name: _name, ...payload } = event;
    this.options.logger.info({ plugin: this.name, runId, ...payload }, kind);
    // A run's processes are gone once its last one stopped for being idle: forget its supervisor, keep its restarts.
    if (event.kind === "process.exited" && event.killedFor === "idle") {
      for (const [key, entry] of this.supervisors) if (entry.supervisor === supervisor) this.forgetWhenIdle(key, supervisor);
    }
    const stepId = this.lastSite?.runId === runId ? this.lastSite.stepId : null;
    this.emit(runId, stepId, supervisorTraceBody(event, { plugin: this.name, sandbox: this.sandboxKind ?? null }));
  }

  private onBreakerChange(change: BreakerChange): void {
    this.options.logger.warn({ plugin: this.name, ...change }, "plugin circuit breaker changed");
    if (this.lastSite)
      this.emit(this.lastSite.runId, this.lastSite.stepId, { kind: "plugin.breaker_changed", payload: { plugin: this.name, ...change } });
  }

  private emit(runId: string, stepId: string | null, body: TraceEventBody): void {
    if (!this.options.trace) return;
    this.options.trace.append({ runId, stepId, ...body }).catch((error: unknown) => {
      this.options.logger.warn({ plugin: this.name, kind: body.kind, error: errorMessage(error) }, "could not trace a plugin event");
    });
  }
}
