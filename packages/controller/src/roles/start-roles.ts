import type { KeyObject } from "node:crypto";
import type { Worker } from "bullmq";
import type { ModelProvider, ModelStreamEvent } from "@rein/models";
import { LessonStore, RedisRateLimiter, type ReinConfig, type ReinRuntime } from "@rein/runtime";
import { closeWorker, DEFAULT_CONCURRENCY, type RunEvents, type WorkerTiming } from "@rein/consumer";
import type { ToolExecutor } from "@rein/tools";
import { evaluateJobRunner, startEvaluateConsumer } from "@rein/evaluator";
import { planJobRunner, startPlanConsumer } from "@rein/planner";
import { startStepConsumer } from "@rein/workers";
import { appliedRunEvents } from "../control/applied-run-events.ts";
import { startController } from "../control/controller.ts";
import { createEventApplier, type EventApplier } from "../control/event-applier.ts";
import { LocalHandoff } from "../control/local-handoff.ts";
import { startDeadlineLoop } from "./deadline-loop.ts";
import { startRedriveLoop } from "./redrive-loop.ts";
import { warmPresenter } from "./warm-presenter.ts";
import { providerForRole } from "./role-providers.ts";
import { publishWorkerStatus } from "./worker-status-board.ts";

export type RoleName = "control" | "plan" | "step" | "evaluate";
const DEFAULT_GRACE_MS = 10_000;

export const ROLE_NAMES: readonly RoleName[] = ["control", "plan", "step", "evaluate"];

export interface StartRolesOptions {
  roles: readonly RoleName[];
  /**
   * Needed by `control`. With it, `plan` and `evaluate` apply their own
   * results (issue 32) instead of sending them to the control queue.
   */
  packetPrivateKey?: KeyObject;
  /** Needed by `step`. */
  packetPublicKey?: KeyObject;
  /** Needed by `step`. */
  executor?: ToolExecutor;
  /** With `step`: the names of the tools it carries from the user's modules, announced so that submitters accept goals granting them. */
  moduleTools?: readonly string[];
  /** Providers by role; missing ones are built from config. */
  providers?: Partial<Record<"planner" | "worker" | "judge", ModelProvider>>;
  /** Jobs each role runs at once, shared among the queue shards' consumers. @defaultValue 8 for control, 4 for the others */
  concurrency?: number;
  /**
   * Lock and stall settings over config `queues`, for every role started
   * here alike (`--lock-ms`).
   */
  stalled?: WorkerTiming;
  onModelEvent?: (event: ModelStreamEvent & { runId: string; stepId: string }) => void;
}

export interface RunningRoles {
  workers: Worker[];
  /**
   * Stops taking jobs and lets the current ones finish for `graceMs`; then
   * gives the rest back (checkpointed) and resolves.
   * @defaultValue graceMs 10_000
   */
  close(graceMs?: number): Promise<void>;
}

/** Starts the named roles as BullMQ consumers in this process. */
export function startRoles(shared: ReinRuntime, options: StartRolesOptions): RunningRoles {
  const { config } = shared;
  // Each role logs as itself, so a log line says which role wrote it even when all run in one process.
  const as = (role: "controller" | "planner" | "worker" | "evaluator"): ReinRuntime => ({
    ...shared,
    logger: shared.logger.child({ role }),
  });
  // One rate budget per provider account and model, shared with every other process through Redis.
  const rateLimiter = new RedisRateLimiter(shared.redis, shared.keys);
  const provider = (role: "planner" | "worker" | "judge") =>
    options.providers?.[role] ?? providerForRole(config, role, process.env, undefined, rateLimiter);
  const workers: Worker[] = [];
  const sweeps: { stop(): Promise<void> }[] = [];
  // One applier per process, so the states it writes are kept for the next event of the same run whichever role sends it.
  let applier: EventApplier | undefined;
  const applierOf = (privateKey: KeyObject): EventApplier => {
    applier ??= createEventApplier({ runtime: as("controller"), packetPrivateKey: privateKey });
    return applier;
  };
  // Where plan or evaluate run in this process with the key, the jobs their results (and steps' results) ask for run here first.
  const handoff =
    options.packetPrivateKey && (options.roles.includes("plan") || options.roles.includes("evaluate"))
      ? new LocalHandoff(as("controller"), { leaseMs: options.stalled?.lockDuration ?? config.queues.lockMs })
      : undefined;
  const results: RunEvents | undefined = options.packetPrivateKey
    ? appliedRunEvents(applierOf(options.packetPrivateKey), shared, handoff)
    : undefined;
  const shards = Array.from({ length: config.queues.shards }, (_, shard) => shard);
  // One consumer per queue shard, sharing the role's concurrency between them (at least one job each).
  const concurrencyOf = (role: RoleName) => Math.ceil((options.concurrency ?? DEFAULT_CONCURRENCY[role]) / shards.length);
  for (const role of options.roles) {
    switch (role) {
      case "control":
        if (!options.packetPrivateKey) throw new Error("the control role needs the packet private key");
        for (const shard of shards) {
          workers.push(
            startController({
              runtime: as("controller"),
              packetPrivateKey: options.packetPrivateKey,
              applier: applierOf(options.packetPrivateKey),
              concurrency: concurrencyOf(role),
              shard,
              stalled: options.stalled,
            }),
          );
        }
        sweeps.push(startRedriveLoop(as("controller")), startDeadlineLoop(as("controller")));
        break;
      case "plan": {
        const planner = provider("planner");
        const lessons = new LessonStore(shared.redis, shared.keys);
        const deps: Parameters<typeof startPlanConsumer>[1] = {
          providerFor: (override) => (override ? providerForRole(config, "planner", process.env, override, rateLimiter) : planner),
          maxTokens: config.roles.planner.maxTokens,
          lessonsFor: (goal) => lessons.refsFor(goal),
        };
        if (handoff && results) handoff.host("plan", planJobRunner(as("planner"), deps, results));
        for (const shard of shards) {
          workers.push(
            startPlanConsumer(as("planner"), deps, {
              concurrency: concurrencyOf(role),
              shard,
              stalled: options.stalled,
              events: results,
            }),
          );
        }
        break;
      }
      case "step": {
        if (!options.packetPublicKey || !options.executor) throw new Error("the step role needs the packet public key and a tool executor");
        const worker = provider("worker");
        // Its own build's steps, and those of the earlier builds config says it can run.
        for (const build of stepBuildsOf(config)) {
          for (const shard of shards) {
            workers.push(
              startStepConsumer({
                runtime: as("worker"),
                packetPublicKey: options.packetPublicKey,
                provider: worker,
                executor: options.executor,
                concurrency: concurrencyOf(role),
                build,
                shard,
                stalled: options.stalled,
                onModelEvent: options.onModelEvent,
              }),
            );
          }
        }
        break;
      }
      case "evaluate": {
        const judge = provider("judge");
        if (handoff && results) handoff.host("evaluate", evaluateJobRunner({ runtime: as("evaluator"), judge, events: results }));
        for (const shard of shards) {
          workers.push(
            startEvaluateConsumer({
              runtime: as("evaluator"),
              judge,
              concurrency: concurrencyOf(role),
              shard,
              stalled: options.stalled,
              events: results,
            }),
          );
        }
        break;
      }
    }
  }
  // Right after start, before the first job's prompt would pay for it; unref'd, it never keeps a process up.
  if (options.roles.some((role) => role !== "control")) setImmediate(warmPresenter).unref();
  const unpublish = publishWorkerStatus(shared, {
    roles: options.roles,
    concurrency: options.concurrency,
    build: config.buildId,
    tools: options.roles.includes("step") ? options.moduleTools : undefined,
  });
  if (config.buildId !== undefined) {
    shared.redis.sadd(shared.keys.builds(), config.buildId).catch((error: unknown) => {
      shared.logger.warn({ err: error, build: config.buildId }, "could not record this build for the queues view");
    });
  }
  return {
    workers,
    close: async (graceMs = DEFAULT_GRACE_MS) => {
      await Promise.all(sweeps.map((sweep) => sweep.stop()));
      const unpublished = unpublish();
      // Let current jobs finish; past the grace period, abort them: a step
      // saves its checkpoint and its job goes back to the queue for another worker.
      const timer = setTimeout(() => {
        handoff?.stop("shutdown: grace period over, giving the job back");
        for (const worker of workers) worker.cancelAllJobs("shutdown: grace period over, giving the job back");
      }, graceMs);
      try {
        await Promise.all(workers.map(closeWorker));
      } finally {
        clearTimeout(timer);
        await unpublished;
      }
    },
  };
}

/** The builds whose step queues a step worker of `config` consumes: its own (none: the unbuilt queue) and `compatibleBuilds`. */
function stepBuildsOf(config: ReinConfig): (string | undefined)[] {
  return [...new Set<string | undefined>([config.buildId, ...config.compatibleBuilds])];
}
