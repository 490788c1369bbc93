import { describe, expect, it } from "vitest";
import { createLogger } from "@rein/guard";
import { CircuitBreaker } from "../../src/supervisor/circuit-breaker.ts";
import { ProcessSupervisor, type SupervisorEvent, type SupervisorOptions } from "../../src/supervisor/process-supervisor.ts";
import type { KillCause, SessionEnd, SupervisedSession } from "../../src/supervisor/supervised-session.ts";
import { supervisorError, supervisorFailureOf } from "../../src/supervisor/supervisor-error.ts";

/** A session whose answers the test controls: no process, so the supervisor's own rules are what is tested. */
class FakeSession implements SupervisedSession<string, string> {
  static started = 0;
  readonly pid = ++FakeSession.started;
  readonly exited: Promise<SessionEnd>;
  readonly calls: Array<{ request: string; answer: (value: string) => void }> = [];
  answersPings = true;
  private end!: (end: SessionEnd) => void;
  private pending: Array<(error: Error) => void> = [];

  constructor() {
    this.exited = new Promise((resolve) => {
      this.end = resolve;
    });
  }
  call(request: string): Promise<string> {
    return new Promise((resolve, reject) => {
      this.calls.push({ request, answer: resolve });
      this.pending.push(reject);
    });
  }
  /** Pings stay unanswered until the process ends, as a ping under way when it is killed does. */
  pingsWaitForExit = false;
  pingsEndedByExit = 0;
  ping(timeoutMs: number): Promise<void> {
    if (this.pingsWaitForExit)
      return new Promise((_, reject) => {
        this.pending.push((error) => {
          this.pingsEndedByExit += 1;
          reject(error);
        });
      });
    return this.answersPings ? Promise.resolve() : new Promise((_, reject) => setTimeout(() => reject(new Error("no pong")), timeoutMs));
  }
  /** A killed process that takes its time to end (until the test ends it). */
  lingers = false;
  kill(cause: KillCause): void {
    // A killed process is gone a moment later, not at once: the supervisor must not depend on the order.
    this.killedFor ??= cause;
    if (!this.lingers) setTimeout(() => this.exit({ exitCode: null, signal: "SIGKILL", killedFor: this.killedFor }), 5);
  }
  killedFor: KillCause | null = null;
  exit(end: SessionEnd): void {
    for (const reject of this.pending.splice(0)) reject(supervisorError("crashed", `fake ${this.pid} ended`));
    this.end(end);
  }
}

function supervised(overrides: Partial<SupervisorOptions<string, string>> = {}) {
  const sessions: FakeSession[] = [];
  const events: SupervisorEvent[] = [];
  const supervisor = new ProcessSupervisor<string, string>({
    name: "fake",
    mode: "persistent",
    logger: createLogger({ level: "silent" }),
    backoff: { initialMs: 5, maxMs: 20 },
    pingIntervalMs: 0,
    open: async () => {
      const session = new FakeSession();
      sessions.push(session);
      return session;
    },
    onEvent: (event) => events.push(event),
    ...overrides,
  });
  return { supervisor, sessions, events };
}

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition never held");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The first call, taken by the first process and answered, with `before` applied to that process just before the answer. */
async function answerOneCall(
  supervisor: ProcessSupervisor<string, string>,
  sessions: FakeSession[],
  before: (session: FakeSession) => void,
): Promise<FakeSession> {
  const call = supervisor.call("a", { deadlineMs: 5_000 });
  await until(() => sessions[0]?.calls.length === 1);
  const session = sessions[0] as FakeSession;
  before(session);
  session.calls[0]?.answer("A");
  await call;
  return session;
}

const failureOf = async (promise: Promise<unknown>) =>
  supervisorFailureOf(
    await promise.then(
      () => undefined,
      (error: unknown) => error,
    ),
  );

describe("ProcessSupervisor", () => {
  it("runs at most `concurrency` calls, queues up to `queueLimit`, and refuses the next at once", async () => {
    const { supervisor, sessions } = supervised({ concurrency: 2, queueLimit: 1 });
    const first = supervisor.call("a", { deadlineMs: 5_000 });
    const second = supervisor.call("b", { deadlineMs: 5_000 });
    const third = supervisor.call("c", { deadlineMs: 5_000 });
    expect(await failureOf(supervisor.call("d", { deadlineMs: 5_000 }))).toBe("queue_full");
    await until(() => sessions[0]?.calls.length === 2);
    expect(supervisor.status()).toMatchObject({ inFlight: 2, queued: 1 });
    sessions[0]?.calls[0]?.answer("A");
    expect(await first).toBe("A");
    await until(() => sessions[0]?.calls.length === 3);
    sessions[0]?.calls[1]?.answer("B");
    sessions[0]?.calls[2]?.answer("C");
    expect([await second, await third]).toEqual(["B", "C"]);
    expect(sessions).toHaveLength(1);
    await supervisor.close();
  });

  it("per_call: every call gets a fresh process, stopped after its answer", async () => {
    const { supervisor, sessions } = supervised({ mode: "per_call" });
    for (const request of ["a", "b"]) {
      const answer = supervisor.call(request, { deadlineMs: 5_000 });
      await until(() => sessions.at(-1)?.calls.length === 1 && sessions.length === (request === "a" ? 1 : 2));
      sessions.at(-1)?.calls[0]?.answer(request.toUpperCase());
      expect(await answer).toBe(request.toUpperCase());
    }
    expect((await Promise.all(sessions.map((session) => session.exited))).map((end) => end.killedFor)).toEqual(["stopped", "stopped"]);
    expect(supervisor.status().restarts).toBe(0);
    await supervisor.close();
  });

  it("per_call: a call past its deadline counts against the breaker; a process gone after its answer does not", async () => {
    const breaker = new CircuitBreaker({ failureThreshold: 1, openMs: 60_000 });
    const { supervisor, sessions } = supervised({ mode: "per_call", breaker });
    const answered = supervisor.call("a", { deadlineMs: 5_000 });
    await until(() => sessions[0]?.calls.length === 1);
    sessions[0]?.calls[0]?.answer("A");
    await answered;
    sessions[0]?.exit({ exitCode: 0, signal: null, killedFor: null });
    await sessions[0]?.exited;
    expect(breaker.state()).toBe("closed");
    expect(await failureOf(supervisor.call("b", { deadlineMs: 20 }))).toBe("deadline");
    expect((await sessions[1]?.exited)?.killedFor).toBe("deadline");
    await until(() => breaker.state() === "open");
    await supervisor.close();
  });

  it("kills an idle process that stops answering pings, and the next call gets a new one", async () => {
    const { supervisor, sessions, events } = supervised({ pingIntervalMs: 20, pingTimeoutMs: 20 });
    const first = supervisor.call("a", { deadlineMs: 5_000 });
    await until(() => sessions[0]?.calls.length === 1);
    sessions[0]?.calls[0]?.answer("A");
    await first;
    (sessions[0] as FakeSession).answersPings = false;
    expect((await sessions[0]?.exited)?.killedFor).toBe("unhealthy");
    expect(events.some((event) => event.kind === "process.exited" && event.killedFor === "unhealthy" && event.unexpected)).toBe(true);
    const second = supervisor.call("b", { deadlineMs: 5_000 });
    await until(() => sessions[1]?.calls.length === 1);
    sessions[1]?.calls[0]?.answer("B");
    expect(await second).toBe("B");
    expect(supervisor.status().restarts).toBe(1);
    await supervisor.close();
  });

  it("an idle stop that lands during a ping is an idle stop, not a failed health check", async () => {
    const warnings: string[] = [];
    const logger = createLogger({ level: "warn" }, { write: (line: string) => warnings.push(line) });
    const { supervisor, sessions } = supervised({ logger, pingIntervalMs: 10, pingTimeoutMs: 60_000, idleMs: 200 });
    const session = await answerOneCall(supervisor, sessions, (fake) => {
      fake.pingsWaitForExit = true;
    });
    expect((await session.exited).killedFor).toBe("idle");
    await until(() => session.pingsEndedByExit === 1);
    // The supervisor's handling of the ended ping runs right after it; one macrotask later it has.
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((line) => line.includes("health check"))).toEqual([]);
    await supervisor.close();
  });

  it("a call after an idle stop gets a new process, even while the stopped one is still ending", async () => {
    const { supervisor, sessions } = supervised({ idleMs: 20 });
    const stopped = await answerOneCall(supervisor, sessions, (fake) => {
      fake.lingers = true;
    });
    await until(() => stopped.killedFor === "idle");
    const second = supervisor.call("b", { deadlineMs: 5_000 });
    await until(() => sessions[1]?.calls.length === 1);
    sessions[1]?.calls[0]?.answer("B");
    expect(await second).toBe("B");
    expect(stopped.calls).toHaveLength(1);
    stopped.exit({ exitCode: null, signal: "SIGKILL", killedFor: "idle" });
    await supervisor.close();
  });

  it("started eagerly, restarts a crashed process by itself after the backoff", async () => {
    const { supervisor, sessions, events } = supervised();
    await supervisor.start();
    sessions[0]?.exit({ exitCode: 1, signal: null, killedFor: null });
    await until(() => sessions.length === 2 && supervisor.status().state === "running");
    expect(
      events.filter((event) => event.kind === "process.started").map((event) => event.kind === "process.started" && event.restart),
    ).toEqual([false, true]);
    await supervisor.close();
  });

  it("a start that keeps failing opens the breaker; calls are then refused without starting anything", async () => {
    let attempts = 0;
    const breaker = new CircuitBreaker({ failureThreshold: 2, openMs: 60_000 });
    const { supervisor } = supervised({
      breaker,
      open: async () => {
        attempts += 1;
        throw new Error("exec format error");
      },
    });
    expect(await failureOf(supervisor.call("a", { deadlineMs: 1_000 }))).toBe("start_failed");
    expect(await failureOf(supervisor.call("b", { deadlineMs: 1_000 }))).toBe("start_failed");
    expect(breaker.state()).toBe("open");
    expect(await failureOf(supervisor.call("c", { deadlineMs: 1_000 }))).toBe("breaker_open");
    expect(attempts).toBe(2);
    await supervisor.close();
  });

  it("an aborted call gives its slot back; close fails queued calls and ends every process", async () => {
    const { supervisor, sessions } = supervised({ concurrency: 1, queueLimit: 4 });
    const running = supervisor.call("a", { deadlineMs: 5_000 });
    const controller = new AbortController();
    const abandoned = supervisor.call("b", { deadlineMs: 5_000, signal: controller.signal });
    const queued = supervisor.call("c", { deadlineMs: 5_000 });
    controller.abort();
    expect(await failureOf(abandoned)).toBe("aborted");
    expect(supervisor.status().queued).toBe(1);
    await until(() => sessions[0]?.calls.length === 1);
    const [queuedFailure, runningFailure] = [failureOf(queued), failureOf(running)];
    await supervisor.close();
    expect(await queuedFailure).toBe("stopped");
    expect(await runningFailure).toBe("crashed");
    expect((await sessions[0]?.exited)?.killedFor).toBe("stopped");
  });
});

describe("CircuitBreaker", () => {
  it("opens after N failures in the window, half-opens after its time, and one probe decides", () => {
    let now = 0;
    const changes: string[] = [];
    const breaker = new CircuitBreaker({
      failureThreshold: 2,
      windowMs: 1_000,
      openMs: 500,
      now: () => now,
      onChange: (change) => changes.push(`${change.from}->${change.to}:${change.reason}`),
    });
    breaker.recordFailure({ allowed: true, probe: false }, "crashed");
    now = 1_500;
    breaker.recordFailure({ allowed: true, probe: false }, "crashed");
    expect(breaker.state()).toBe("closed");
    breaker.recordFailure({ allowed: true, probe: false }, "deadline");
    expect(breaker.admit()).toEqual({ allowed: false, retryInMs: 500 });
    now = 2_000;
    const probe = breaker.admit();
    expect(probe).toEqual({ allowed: true, probe: true });
    expect(breaker.admit().allowed).toBe(false);
    breaker.recordFailure(probe, "crashed");
    now = 2_500;
    const second = breaker.admit();
    breaker.recordSuccess(second);
    expect(breaker.state()).toBe("closed");
    expect(changes).toEqual([
      "closed->open:deadline",
      "open->half_open:cooled_down",
      "half_open->open:probe_failed",
      "open->half_open:cooled_down",
      "half_open->closed:probe_succeeded",
    ]);
  });
});
