import { setTimeout as delay } from "node:timers/promises";
import { errorMessage } from "@rein/contracts";
import { createLogger, type Logger } from "@rein/guard";
import { CircuitBreaker } from "./circuit-breaker.ts";
import type { KillCause, SessionEnd, SessionOpener, SupervisedSession } from "./supervised-session.ts";
import { supervisorError, supervisorFailureOf } from "./supervisor-error.ts";

/** `persistent`: one long-lived process serves every call; `per_call`: a fresh process per call. */
export type SupervisionMode = "persistent" | "per_call";

export interface SupervisorOptions<Request, Response> {
  /** Names the process in errors, logs and events. */
  name: string;
  open: SessionOpener<Request, Response>;
  mode: SupervisionMode;
  /** Calls in flight at once (per_call: processes at once). @defaultValue 1 */
  concurrency?: number;
  /** Calls waiting for a slot; one more is refused with `queue_full`. @defaultValue 16 */
  queueLimit?: number;
  /** Start plus handshake. @defaultValue 10_000 */
  startTimeoutMs?: number;
  /** How often an idle persistent process is pinged; 0 turns health checks off. @defaultValue 15_000 */
  pingIntervalMs?: number;
  /** @defaultValue 5_000 */
  pingTimeoutMs?: number;
  /** The wait before a restart after a failure, doubled for each failure in a row, capped at `maxMs`. @defaultValue { initialMs: 250, maxMs: 30_000 } */
  backoff?: { initialMs?: number; maxMs?: number };
  /** A persistent process without calls for this long is stopped (not a failure); 0 keeps it. @defaultValue 0 */
  idleMs?: number;
  /** Shared by every supervisor of one logical server (a plugin's processes in several runs). @defaultValue a breaker of its own */
  breaker?: CircuitBreaker;
  onEvent?: (event: SupervisorEvent) => void;
  logger?: Logger;
  now?: () => number;
}

export type SupervisorEvent =
  | { kind: "process.started"; name: string; pid: number | undefined; restart: boolean }
  | { kind: "process.start_failed"; name: string; message: string; failuresInARow: number }
  | {
      kind: "process.exited";
      name: string;
      pid: number | undefined;
      exitCode: number | null;
      signal: string | null;
      killedFor: KillCause | null;
      unexpected: boolean;
      detail?: string;
    };

export interface SupervisorStatus {
  state: "idle" | "starting" | "running" | "backoff" | "stopped";
  pid: number | undefined;
  /** Processes started again after a crash, a hang or a failed start. */
  restarts: number;
  inFlight: number;
  queued: number;
  breaker: ReturnType<CircuitBreaker["state"]>;
  lastExit?: { exitCode: number | null; signal: string | null; killedFor: KillCause | null; detail?: string };
}

interface Waiter {
  resume: () => void;
  fail: (error: Error) => void;
}

/**
 * Supervises child processes that answer requests: starts one on first use
 * (or at `start()`), checks an idle one with pings, restarts a dead or hung
 * one after an exponential backoff, opens a circuit breaker when they keep
 * failing, enforces each call's deadline by killing the process tree, and
 * bounds concurrency with a bounded queue. What a process speaks is the
 * session's business (`SupervisedSession`), so the plugin wire and an MCP
 * stdio client can share it.
 */
export class ProcessSupervisor<Request, Response> {
  readonly breaker: CircuitBreaker;
  private session: SupervisedSession<Request, Response> | undefined;
  private starting: Promise<SupervisedSession<Request, Response>> | undefined;
  private readonly live = new Set<SupervisedSession<Request, Response>>();
  private readonly endExpected = new WeakSet<SupervisedSession<Request, Response>>();
  private readonly waiting: Waiter[] = [];
  private inFlight = 0;
  private failuresInARow = 0;
  private nextStartAt = 0;
  private restarts = 0;
  private stopped = false;
  private eager = false;
  private lastExit: SupervisorStatus["lastExit"];
  private pingTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private readonly closing = new AbortController();
  private readonly logger: Logger;
  private readonly now: () => number;

  constructor(private readonly options: SupervisorOptions<Request, Response>) {
    this.breaker = options.breaker ?? new CircuitBreaker();
    this.logger = (options.logger ?? createLogger()).child({ supervised: options.name });
    this.now = options.now ?? Date.now;
  }

  /** Starts the persistent process now rather than on first use, and restarts it after a crash without waiting for a call. */
  async start(): Promise<void> {
    if (this.options.mode !== "persistent") return;
    this.eager = true;
    await this.persistentSession(undefined);
  }

  /**
   * Sends one request and resolves with the answer. Rejects with a
   * `tool_failed` ReinError whose `details.supervisor` says why
   * (`SupervisorFailure`): the call never leaves a process running past its
   * deadline.
   */
  async call(request: Request, options: { deadlineMs: number; signal?: AbortSignal }): Promise<Response> {
    if (this.stopped) throw supervisorError("stopped", `${this.options.name} is shut down; expected calls only while its host runs`);
    const admission = this.breaker.admit();
    if (!admission.allowed) {
      throw supervisorError(
        "breaker_open",
        `${this.options.name} was not called: it failed repeatedly, so its circuit breaker is open; one probe call is let through in about ${Math.ceil(admission.retryInMs / 1000)} s`,
        { details: { retryInMs: admission.retryInMs } },
      );
    }
    try {
      await this.acquireSlot(options.signal);
    } catch (error) {
      this.breaker.release(admission);
      throw error;
    }
    let session: SupervisedSession<Request, Response> | undefined;
    try {
      session = this.options.mode === "per_call" ? await this.startSession(options.signal) : await this.persistentSession(options.signal);
      const response = await this.callWithDeadline(session, request, options);
      // A per-call process may exit by itself once it has answered: that end is expected.
      if (this.options.mode === "per_call") this.endExpected.add(session);
      this.failuresInARow = 0;
      this.breaker.recordSuccess(admission);
      return response;
    } catch (error) {
      const failure = supervisorFailureOf(error);
      // A broken process is counted once, when it ends (see `watch`); only a probe's own outcome is decided here.
      if (admission.probe && failure !== "aborted" && failure !== "stopped") this.breaker.recordFailure(admission, failure ?? "failed");
      else this.breaker.release(admission);
      throw error;
    } finally {
      if (session && this.options.mode === "per_call") session.kill("stopped");
      this.releaseSlot();
    }
  }

  status(): SupervisorStatus {
    const state = this.stopped
      ? "stopped"
      : this.session
        ? "running"
        : this.starting
          ? "starting"
          : this.nextStartAt > this.now()
            ? "backoff"
            : "idle";
    return {
      state,
      pid: this.session?.pid,
      restarts: this.restarts,
      inFlight: this.inFlight,
      queued: this.waiting.length,
      breaker: this.breaker.state(),
      lastExit: this.lastExit,
    };
  }

  /** Refuses new calls, fails queued ones, kills every process tree and waits until each is gone. */
  async close(): Promise<void> {
    this.stopped = true;
    this.closing.abort();
    for (const timer of [this.pingTimer, this.idleTimer, this.restartTimer]) clearTimeout(timer);
    for (const waiter of this.waiting.splice(0))
      waiter.fail(supervisorError("stopped", `${this.options.name} was shut down before the call could start`));
    const ends = [...this.live].map((session) => {
      this.endExpected.add(session);
      session.kill("stopped");
      return session.exited;
    });
    await Promise.all(ends);
  }

  private async persistentSession(signal: AbortSignal | undefined): Promise<SupervisedSession<Request, Response>> {
    if (this.session) return this.session;
    if (!this.starting) {
      // Shared by every caller waiting for it, so one caller's abort does not cancel the others' start.
      this.starting = this.startSession(undefined).then(
        (session) => {
          this.starting = undefined;
          this.session = session;
          this.armPing();
          return session;
        },
        (error: unknown) => {
          this.starting = undefined;
          throw error;
        },
      );
    }
    return signal ? raceAbort(this.starting, signal, () => this.abortedError()) : this.starting;
  }

  private async startSession(signal: AbortSignal | undefined): Promise<SupervisedSession<Request, Response>> {
    const wait = this.nextStartAt - this.now();
    if (wait > 0) {
      try {
        await delay(wait, undefined, { signal: AbortSignal.any([this.closing.signal, ...(signal ? [signal] : [])]) });
      } catch {
        throw this.stopped ? supervisorError("stopped", `${this.options.name} was shut down`) : this.abortedError();
      }
    }
    const restart = this.failuresInARow > 0;
    const startTimeoutMs = this.options.startTimeoutMs ?? 10_000;
    const abort = AbortSignal.any([this.closing.signal, AbortSignal.timeout(startTimeoutMs), ...(signal ? [signal] : [])]);
    let session: SupervisedSession<Request, Response>;
    try {
      session = await this.options.open(abort);
    } catch (error) {
      if (this.stopped) throw supervisorError("stopped", `${this.options.name} was shut down while starting`);
      if (signal?.aborted) throw this.abortedError();
      const timedOut = abort.aborted;
      const message = timedOut ? `it did not complete its handshake within ${startTimeoutMs} ms` : errorMessage(error);
      this.noteFailure("start_failed");
      this.emit({ kind: "process.start_failed", name: this.options.name, message, failuresInARow: this.failuresInARow });
      throw supervisorError("start_failed", `${this.options.name} could not be started: ${message}`, { cause: error });
    }
    if (restart) this.restarts += 1;
    this.emit({ kind: "process.started", name: this.options.name, pid: session.pid, restart });
    this.watch(session);
    return session;
  }

  private watch(session: SupervisedSession<Request, Response>): void {
    this.live.add(session);
    void session.exited.then((end: SessionEnd) => {
      this.live.delete(session);
      if (this.session === session) {
        this.session = undefined;
        clearInterval(this.pingTimer);
        clearTimeout(this.idleTimer);
      }
      // Killed for a deadline, a failed health check or a protocol error, or gone before answering: the process failed.
      const unexpected = end.killedFor === null ? !this.endExpected.has(session) : end.killedFor !== "idle" && end.killedFor !== "stopped";
      this.lastExit = { exitCode: end.exitCode, signal: end.signal, killedFor: end.killedFor, detail: end.detail };
      this.emit({ kind: "process.exited", name: this.options.name, pid: session.pid, ...this.lastExit, unexpected });
      if (!unexpected || this.stopped) return;
      this.logger.warn({ pid: session.pid, ...this.lastExit }, "supervised process ended unexpectedly");
      this.noteFailure(end.killedFor ?? "crashed");
      if (this.eager && this.options.mode === "persistent") this.scheduleRestart();
    });
  }

  /** A failure of the process (not of a call's arguments): the breaker counts it and the next start waits longer. */
  private noteFailure(reason: string): void {
    this.failuresInARow += 1;
    const initialMs = this.options.backoff?.initialMs ?? 250;
    const maxMs = this.options.backoff?.maxMs ?? 30_000;
    this.nextStartAt = this.now() + Math.min(maxMs, initialMs * 2 ** (this.failuresInARow - 1));
    this.breaker.recordFailure({ allowed: true, probe: false }, reason);
  }

  private scheduleRestart(): void {
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(
      () => {
        if (this.stopped || this.session || this.starting) return;
        if (this.breaker.state() === "open") {
          this.scheduleRestart();
          return;
        }
        this.persistentSession(undefined).catch(() => this.scheduleRestart());
      },
      Math.max(0, this.nextStartAt - this.now()),
    );
    this.restartTimer.unref();
  }

  private callWithDeadline(
    session: SupervisedSession<Request, Response>,
    request: Request,
    options: { deadlineMs: number; signal?: AbortSignal },
  ): Promise<Response> {
    clearTimeout(this.idleTimer);
    return new Promise<Response>((resolvePromise, reject) => {
      let settled = false;
      const finish = (settle: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        settle();
      };
      const timer = setTimeout(() => {
        const hint = session.describeHang?.();
        finish(() =>
          reject(
            supervisorError(
              "deadline",
              `${this.options.name} did not answer within its deadline of ${options.deadlineMs} ms${hint ? ` (${hint})` : ""}; its process tree was killed`,
              {
                details: { deadlineMs: options.deadlineMs },
              },
            ),
          ),
        );
        this.retire(session, "deadline");
      }, options.deadlineMs);
      const onAbort = () => {
        finish(() => reject(this.abortedError()));
        // The answer a persistent process may still send is dropped as late; a per-call process is killed in `call`.
      };
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener("abort", onAbort, { once: true });
      session.call(request, { deadlineMs: options.deadlineMs, signal: options.signal }).then(
        (response) => finish(() => resolvePromise(response)),
        (error: unknown) => finish(() => reject(error)),
      );
    });
  }

  private acquireSlot(signal: AbortSignal | undefined): Promise<void> {
    const concurrency = Math.max(1, this.options.concurrency ?? 1);
    if (this.inFlight < concurrency && this.waiting.length === 0) {
      this.inFlight += 1;
      return Promise.resolve();
    }
    const queueLimit = this.options.queueLimit ?? 16;
    if (this.waiting.length >= queueLimit) {
      return Promise.reject(
        supervisorError(
          "queue_full",
          `${this.options.name} was not called: ${this.inFlight} calls are running and ${this.waiting.length} waiting, the most it queues; try again later`,
        ),
      );
    }
    return new Promise<void>((resolvePromise, reject) => {
      const waiter: Waiter = {
        resume: () => {
          signal?.removeEventListener("abort", onAbort);
          resolvePromise();
        },
        fail: (error) => {
          signal?.removeEventListener("abort", onAbort);
          reject(error);
        },
      };
      const onAbort = () => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(this.abortedError());
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private releaseSlot(): void {
    const next = this.waiting.shift();
    if (next) {
      next.resume();
      return;
    }
    this.inFlight -= 1;
    if (this.inFlight === 0) this.armIdle();
  }

  private armPing(): void {
    const interval = this.options.pingIntervalMs ?? 15_000;
    if (interval <= 0 || this.options.mode !== "persistent") return;
    clearInterval(this.pingTimer);
    let pinging = false;
    this.pingTimer = setInterval(() => {
      const session = this.session;
      // A busy process may not answer pings until its call is done; a hung call is caught by its deadline.
      if (!session || pinging || this.inFlight > 0) return;
      pinging = true;
      session
        .ping(this.options.pingTimeoutMs ?? 5_000)
        .catch((error: unknown) => {
          // Retired while the ping was under way (an idle stop): its ping ended with it, which says nothing of its health.
          if (this.session !== session) return;
          this.logger.warn({ pid: session.pid, error: errorMessage(error) }, "supervised process failed its health check; killing it");
          this.retire(session, "unhealthy");
        })
        .finally(() => {
          pinging = false;
        });
    }, interval);
    this.pingTimer.unref();
  }

  private armIdle(): void {
    const idleMs = this.options.idleMs ?? 0;
    if (idleMs <= 0 || this.options.mode !== "persistent" || this.eager) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.inFlight === 0 && this.session) this.retire(this.session, "idle");
    }, idleMs);
    this.idleTimer.unref();
  }

  private abortedError() {
    return supervisorError("aborted", `the call to ${this.options.name} was abandoned: the step aborted it`);
  }

  /** Kills a session the supervisor gave up on; calls from now on get a fresh process instead of the dying one. */
  private retire(session: SupervisedSession<Request, Response>, cause: KillCause): void {
    if (this.session === session) {
      this.session = undefined;
      clearInterval(this.pingTimer);
      clearTimeout(this.idleTimer);
    }
    session.kill(cause);
  }

  private emit(event: SupervisorEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch (error) {
      this.logger.error({ error: errorMessage(error) }, "supervisor event listener threw");
    }
  }
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal, reason: () => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(reason());
  return new Promise<T>((resolvePromise, reject) => {
    const onAbort = () => reject(reason());
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolvePromise(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
