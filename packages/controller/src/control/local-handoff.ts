import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { EvaluateJob, PlanJob } from "@rein/contracts/messages";
import type { HandedJob, WatchedLock } from "@rein/consumer";
import type { ControllerRuntime } from "@rein/runtime";

/** A plan or evaluate job a transition asks for, with the id it has in its queue. */
export type HandedWork = { kind: "plan"; job: PlanJob; jobId: string } | { kind: "evaluate"; job: EvaluateJob; jobId: string };

type Runner<T> = (job: T, handed: HandedJob) => Promise<void>;

export interface LocalHandoffOptions {
  /** How long a lease lasts unrenewed; renewed every third of it while its job runs. */
  leaseMs: number;
  /** Handed jobs in a row from one queue job: a step's result → its evaluation → plan → final evaluation is 3. @defaultValue 3 */
  maxHops?: number;
}

/**
 * The in-process hand-off (issue 32): a plan or evaluate job that a trusted
 * role's result asks for runs in the same process, when it hosts that role,
 * instead of going through its queue. It runs inside the job whose result
 * asked for it, in that job's place among the role's concurrent jobs (the
 * job waits for it), so a crash redelivers that job, whose result's effects
 * are performed again; while it runs, and until it expires after the job
 * finished, a lease (HandoffLeases) stands for the queue job, so the
 * re-drive sweep neither re-sends a slow one nor misses a dead one.
 * Whatever it cannot run here (no slot, too many hops, a failure
 * to try again) goes to its queue under the same job id, with the queue's
 * retries: a handed job is the first try of the queued one. Only plan and
 * evaluate consumers hand jobs over: a controller's events never wait on a model.
 */
export class LocalHandoff {
  readonly #runners: { plan?: Runner<PlanJob>; evaluate?: Runner<EvaluateJob> } = {};
  readonly #hops = new AsyncLocalStorage<number>();
  readonly #stopping = new AbortController();
  readonly #holder = `${hostname()}:${process.pid}:${randomUUID()}`;

  constructor(
    private readonly runtime: Pick<ControllerRuntime, "handoffs" | "logger">,
    private readonly options: LocalHandoffOptions,
  ) {}

  /** Runs this process's plan jobs (`kind` "plan") or evaluate jobs handed to it with `runner`. */
  host(kind: "plan", runner: Runner<PlanJob>): void;
  host(kind: "evaluate", runner: Runner<EvaluateJob>): void;
  host(kind: HandedWork["kind"], runner: Runner<PlanJob> | Runner<EvaluateJob>): void {
    Object.assign(this.#runners, { [kind]: runner });
  }

  /**
   * The lease `run` would take for a job of `kind`, for the write that asks
   * for the job to take instead (RunStore.saveOrRead): one round trip fewer
   * per hand-off. Undefined when this process would not run such a job now.
   */
  leaseFor(kind: HandedWork["kind"]): { holder: string; ttlMs: number } | undefined {
    return this.#runnerFor(kind) ? { holder: this.#holder, ttlMs: this.options.leaseMs } : undefined;
  }

  /**
   * Runs `work` here; false when it was not run and must be sent to its
   * queue. True also when another holder has its lease: it runs there.
   * `leased`: whether the write that asked for it took its lease (see
   * leaseFor), or found another's; undefined, the lease is taken now.
   */
  async run(work: HandedWork, leased?: boolean): Promise<boolean> {
    const runner = this.#runnerFor(work.kind);
    if (!runner) return false;
    const { runId } = work.job;
    const { handoffs, logger } = this.runtime;
    if (!(leased ?? (await handoffs.take(runId, work.jobId, this.#holder, this.options.leaseMs)))) return true;
    const lease = this.#watchLease(runId, work.jobId);
    const hops = this.#hops.getStore() ?? 0;
    try {
      await this.#hops.run(hops + 1, () => runner(work.job, { jobId: work.jobId, lease, signal: this.#stopping.signal }));
      // The lease is left to expire: until then it stands for the finished job, as a queue keeps a finished job.
      return true;
    } catch (error) {
      logger.warn({ err: error, runId, jobId: work.jobId }, `handed ${work.kind} job failed; sent to its queue to be tried again`);
      // Released, so that a hand-off of the same job again (its sending failed, the job that asked is retried) can take it.
      await handoffs.release(runId, work.jobId, this.#holder).catch((releaseError: unknown) => {
        logger.warn({ err: releaseError, runId, jobId: work.jobId }, "could not release a hand-off lease; it expires on its own");
      });
      return false;
    } finally {
      lease.release();
    }
  }

  /** The runner of `kind` when a job of it may run here now: hosted, within the hops, not stopping. */
  #runnerFor(kind: HandedWork["kind"]): Runner<HandedWork["job"]> | undefined {
    const hops = this.#hops.getStore() ?? 0;
    if (hops >= (this.options.maxHops ?? 3) || this.#stopping.signal.aborted) return undefined;
    return this.#runners[kind] as Runner<HandedWork["job"]> | undefined;
  }

  /** Stops the handed jobs running now (shutdown): each goes to its queue for another process. */
  stop(reason: string): void {
    this.#stopping.abort(new Error(reason));
  }

  /** The lease as the job's lock: renewed in the background, lost once a renewal finds it gone or another's. */
  #watchLease(runId: string, jobId: string): WatchedLock {
    const lost = new AbortController();
    const { leaseMs } = this.options;
    const renew = () => {
      this.runtime.handoffs.renew(runId, jobId, this.#holder, leaseMs).then(
        (held) => {
          if (!held) lost.abort(new Error(`the hand-off lease on job ${jobId} expired`));
        },
        (error: unknown) => this.runtime.logger.warn({ err: error, runId, jobId }, "could not renew a hand-off lease; trying again"),
      );
    };
    const timer = setInterval(renew, Math.max(1, Math.floor(leaseMs / 3)));
    timer.unref();
    return { held: () => !lost.signal.aborted, signal: lost.signal, release: () => clearInterval(timer) };
  }
}
