import type { ConnectionOptions, JobsOptions, Queue, Telemetry } from "bullmq";
import { BuildId } from "@rein/contracts";
import {
  type ContextJob,
  type ControlEvent,
  type EvaluateJob,
  type PlanJob,
  STEP_RESULT_JOB,
  type StepFinishedEvent,
  type StepJob,
} from "@rein/contracts/messages";
import type { ReinConfig } from "../config/config.ts";
import { type QueueRole, type QueueSettings, QueuesConfig, queueSettingsOf } from "../config/queues-config.ts";
import { JobRetention } from "../config/retention-config.ts";
import type { RedisKeys } from "../redis/keys.ts";
import type { RedisErrorLog } from "../redis/redis-error-log.ts";
import { carriesTrace, type RunTraceContexts } from "../telemetry/run-trace-contexts.ts";
import { loadBullmq } from "./load-bullmq.ts";
import { QUEUE_NAMES, type QueueName, jobIds, stepQueueName } from "./queue-names.ts";

/**
 * Job options with the default settings (`queues` and `retention.jobs` of
 * an empty config): what a queue made outside a runtime (a benchmark's) uses.
 */
export const defaultJobOptions: JobsOptions = jobOptionsOf(queueSettingsOf(QueuesConfig.parse({}), "control"), JobRetention.parse({}));

/**
 * Each queue's job options from config: tries from `queues` (per role), and
 * how long finished jobs stay from `retention.jobs`. Completed jobs are kept
 * a while so that a re-enqueue with the same id (after a crash) is recognised
 * as a duplicate; failed ones longer, to inspect.
 */
export function queueJobOptions(config: Pick<ReinConfig, "queues" | "retention">): Record<QueueName, JobsOptions> {
  const of = (role: QueueRole) => jobOptionsOf(queueSettingsOf(config.queues, role), config.retention.jobs);
  return { control: of("control"), plan: of("plan"), step: of("step"), evaluate: of("evaluate") };
}

function jobOptionsOf(settings: QueueSettings, retention: JobRetention): JobsOptions {
  return {
    attempts: settings.attempts,
    backoff: { type: "exponential", delay: 200 },
    removeOnComplete: { age: retention.completedAgeSeconds, count: retention.completedCount },
    removeOnFail: { age: retention.failedAgeSeconds, count: retention.failedCount },
  };
}

/** Any priority at all puts a job behind the unprioritized ones; submissions among themselves stay first come, first served. */
const SUBMISSION_PRIORITY = 1;

export interface ReinQueuesOptions {
  /** Job options by queue. @defaultValue `defaultJobOptions` for each */
  jobs?: Record<QueueName, JobsOptions>;
  /** Where each queue's connection errors go; without it BullMQ prints them as unhandled. */
  redisErrors?: RedisErrorLog;
  /** With live OpenTelemetry: each job carries the context of the span that enqueued it. */
  telemetry?: Telemetry;
  /** With live OpenTelemetry: where each run's trace began, so an event sent outside any span joins it. */
  runTraces?: RunTraceContexts;
}

/** What ReinQueues needs of the keys: the shards' prefixes and which shard a run's jobs go to. */
export type QueueShards = Pick<RedisKeys, "queuePrefix" | "queueShards" | "shardOf">;

/**
 * Producers for the four queues, each split into `queues.shards` shards (one
 * BullMQ queue per shard under its own hash tag); every job of a run goes
 * to the run's shard. Payloads are validated before they are added. Each
 * queue (and BullMQ itself) is made on first use, so a process that never
 * enqueues (`rein status`) neither loads BullMQ nor opens its connections.
 */
export class ReinQueues {
  readonly #made = new Map<string, Queue>();

  constructor(
    private readonly connection: ConnectionOptions,
    private readonly shards: QueueShards,
    private readonly options: ReinQueuesOptions = {},
  ) {}

  /** The control queue, where it is one queue (`queues.shards` 1); with shards, ofRun says which. */
  get control(): Queue {
    return this.#unsharded(QUEUE_NAMES.control);
  }

  get plan(): Queue {
    return this.#unsharded(QUEUE_NAMES.plan);
  }

  /** The step queue of runs started under no build. */
  get step(): Queue {
    return this.#unsharded(QUEUE_NAMES.step);
  }

  get evaluate(): Queue {
    return this.#unsharded(QUEUE_NAMES.evaluate);
  }

  /** How many shards each queue has. */
  get shardCount(): number {
    return this.shards.queueShards;
  }

  /** Role queue `name` on the shard that holds run `runId`'s jobs. */
  ofRun(name: QueueName, runId: string): Queue {
    return this.#queue(name, this.shards.shardOf(runId));
  }

  /** The queue named `name` on `shard`: a role's, or a build's step queue (`step.<build>`); undefined for any other name. */
  named(name: string, shard = 0): Queue | undefined {
    if ((Object.values(QUEUE_NAMES) as string[]).includes(name)) return this.#queue(name, shard);
    const build = name.startsWith(`${QUEUE_NAMES.step}.`) ? name.slice(QUEUE_NAMES.step.length + 1) : undefined;
    return build !== undefined && BuildId.safeParse(build).success ? this.stepOf(build, shard) : undefined;
  }

  /** The step queue of runs started under `build` (`step` for none) on `shard`: only step workers of that build take from it. */
  stepOf(build: string | undefined, shard = 0): Queue {
    return this.#queue(stepQueueName(build), shard, QUEUE_NAMES.step);
  }

  /** A role's queue where there is one: with shards, a job reached through shard 0 would be another run's, or none. */
  #unsharded(name: QueueName): Queue {
    if (this.shards.queueShards > 1)
      throw new Error(`the ${name} queue has ${this.shards.queueShards} shards (queues.shards); name the run (ofRun) or the shard (named)`);
    return this.#queue(name, 0);
  }

  #queue(name: string, shard: number, role: QueueName = name as QueueName): Queue {
    const key = `${shard}/${name}`;
    let queue = this.#made.get(key);
    if (!queue) {
      queue = new (loadBullmq().Queue)(name, {
        connection: this.connection,
        prefix: this.shards.queuePrefix(shard),
        telemetry: this.options.telemetry,
        defaultJobOptions: this.options.jobs?.[role] ?? defaultJobOptions,
      });
      this.options.redisErrors?.watch(queue, this.shards.queueShards === 1 ? `${name} queue` : `${name} queue, shard ${shard}`);
      this.#made.set(key, queue);
    }
    return queue;
  }

  /**
   * A new run's `goal.submitted` waits behind every other control event:
   * BullMQ takes jobs without a priority before prioritized ones, so a burst
   * of a thousand submissions never holds up the runs already in flight
   * (their results, verdicts, cancels and deadlines); `sendPlan` does the
   * same for a new run's first plan. One queue and one
   * consumer keep the controller's concurrency and lease handling as they
   * are; a separate intake queue would need its own consumer and share of
   * concurrency for the same effect.
   */
  // Not parsed here: every sender builds its event in this process (a role's
  // result, the API's and the CLI's own commands over their parsed input), and
  // the controller parses each event at intake, the queue's one boundary. The
  // second pass cost a step worker ~120 µs of a dispatch cycle's critical path
  // (a cold parse of step.finished, measured in bench:dispatch).
  async sendControl(event: ControlEvent, options: JobsOptions = {}): Promise<void> {
    const intake = event.type === "goal.submitted" ? { priority: SUBMISSION_PRIORITY } : {};
    const add = () =>
      this.ofRun(QUEUE_NAMES.control, event.runId).add(event.type, event, { jobId: jobIds.control(event.eventId), ...intake, ...options });
    const job = await this.#withinRunTrace(event.runId, add);
    const metadata = job.opts.telemetry?.metadata;
    if (event.type === "goal.submitted" && metadata) await this.options.runTraces?.remember(event.runId, metadata);
  }

  /**
   * Runs `add` in the run's trace when nothing is being traced here: an
   * approval, reply or cancel sent from the API or the CLI. Inside a job
   * (the controller's own events) the job's span is already the parent.
   */
  async #withinRunTrace<T>(runId: string, add: () => Promise<T>): Promise<T> {
    const { telemetry, runTraces } = this.options;
    if (!telemetry || !runTraces || this.#tracing()) return add();
    const contexts = telemetry.contextManager;
    const metadata = await runTraces.recall(runId);
    return metadata ? contexts.with(contexts.fromMetadata(contexts.active(), metadata), add) : add();
  }

  /** Whether a span is active here (inside a job, or a caller's span): what is added now joins its trace. */
  #tracing(): boolean {
    const contexts = this.options.telemetry?.contextManager;
    return contexts !== undefined && carriesTrace(contexts.getMetadata(contexts.active()));
  }

  // The plan, context, step and evaluate jobs come only from the controller's
  // own transition, whose effects the property tests hold to these schemas,
  // and their consumers parse every job at intake, as the controller parses
  // every control event.

  /**
   * A new run's first plan waits behind the plans of runs in flight, for the
   * reason `sendControl` gives. A run taken in where it was submitted
   * (intakeEvents) starts its trace here, as no `goal.submitted` job did.
   */
  async sendPlan(job: PlanJob): Promise<void> {
    const intake = job.planNo === 1 ? { priority: SUBMISSION_PRIORITY } : {};
    const started = !this.#tracing();
    const added = await this.ofRun(QUEUE_NAMES.plan, job.runId).add("plan", job, { jobId: jobIds.plan(job.runId, job.planNo), ...intake });
    const metadata = added.opts.telemetry?.metadata;
    if (job.planNo === 1 && metadata && started) await this.options.runTraces?.remember(job.runId, metadata);
  }

  /** Context requests go to the planner's queue: the planner decides what a worker may know. */
  async sendContextRequest(job: ContextJob): Promise<void> {
    await this.ofRun(QUEUE_NAMES.plan, job.runId).add("context", job, {
      jobId: jobIds.context(job.runId, job.stepId, job.attempt, job.resumes),
    });
  }

  /** To the step queue of the build the run was started under (RunState.build). */
  async sendStep(job: StepJob, jobId: string, build?: string): Promise<void> {
    await this.stepOf(build, this.shards.shardOf(job.packet.body.runId)).add("step", job, { jobId });
  }

  /**
   * A step's result goes to the evaluate queue, not the control queue: the
   * evaluate process applies it there (or, without the packet key, passes
   * it on to the controller) and judges the step in the same job, so a
   * completed step costs the run one job and one hop fewer.
   */
  async sendStepResult(event: StepFinishedEvent): Promise<void> {
    await this.ofRun(QUEUE_NAMES.evaluate, event.runId).add(STEP_RESULT_JOB, event, { jobId: jobIds.stepResult(event.eventId) });
  }

  async sendEvaluate(job: EvaluateJob): Promise<void> {
    await this.ofRun(QUEUE_NAMES.evaluate, job.runId).add("evaluate", job, {
      jobId: jobIds.evaluate(job.runId, job.stepId, job.attempt),
    });
  }

  /** Every role's queue on every shard (not the builds' step queues). */
  all(): Queue[] {
    return Array.from({ length: this.shards.queueShards }, (_, shard) =>
      Object.values(QUEUE_NAMES).map((name) => this.#queue(name, shard)),
    ).flat();
  }

  async close(): Promise<void> {
    // A queue closed before its connection is ready rejects with "Connection is closed".
    // Only the queues this process made: closing must not make the others.
    await Promise.all(
      [...this.#made.values()].map(async (queue) => {
        await queue.waitUntilReady().catch(() => undefined);
        await queue.close();
      }),
    );
  }
}
