import { Queue, type ConnectionOptions, type JobsOptions } from "bullmq";
import type { ContextJob, ControlEvent, EvaluateJob, PlanJob, StepJob } from "../contracts/index.ts";
import {
  ContextJob as ContextJobSchema,
  ControlEvent as ControlEventSchema,
  EvaluateJob as EvaluateJobSchema,
  PlanJob as PlanJobSchema,
  StepJob as StepJobSchema,
} from "../contracts/index.ts";
import { QUEUE_NAMES, jobIds } from "./queue-names.ts";

/**
 * Completed jobs are kept for a day so a re-enqueue with the same id (after
 * a crash) is recognised as a duplicate; failed ones for a week to inspect.
 */
export const defaultJobOptions: JobsOptions = {
  attempts: 5,
  backoff: { type: "exponential", delay: 200 },
  removeOnComplete: { age: 24 * 3600, count: 100_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

/** Producers for the four queues. Payloads are validated before they are added. */
export class ReinQueues {
  readonly control: Queue;
  readonly plan: Queue;
  readonly step: Queue;
  readonly evaluate: Queue;

  constructor(connection: ConnectionOptions, readonly prefix: string) {
    const options = { connection, prefix, defaultJobOptions };
    this.control = new Queue(QUEUE_NAMES.control, options);
    this.plan = new Queue(QUEUE_NAMES.plan, options);
    this.step = new Queue(QUEUE_NAMES.step, options);
    this.evaluate = new Queue(QUEUE_NAMES.evaluate, options);
  }

  async sendControl(event: ControlEvent, options: JobsOptions = {}): Promise<void> {
    const data = ControlEventSchema.parse(event);
    await this.control.add(data.type, data, { jobId: jobIds.control(data.eventId), ...options });
  }

  async sendPlan(job: PlanJob): Promise<void> {
    const data = PlanJobSchema.parse(job);
    await this.plan.add("plan", data, { jobId: jobIds.plan(data.runId, data.planNo) });
  }

  /** Context requests go to the planner's queue: the planner decides what a worker may know. */
  async sendContextRequest(job: ContextJob): Promise<void> {
    const data = ContextJobSchema.parse(job);
    await this.plan.add("context", data, { jobId: jobIds.context(data.runId, data.stepId, data.attempt, data.resumes) });
  }

  async sendStep(job: StepJob, jobId: string): Promise<void> {
    const data = StepJobSchema.parse(job);
    await this.step.add("step", data, { jobId });
  }

  async sendEvaluate(job: EvaluateJob): Promise<void> {
    const data = EvaluateJobSchema.parse(job);
    await this.evaluate.add("evaluate", data, { jobId: jobIds.evaluate(data.runId, data.stepId, data.attempt) });
  }

  all(): Queue[] {
    return [this.control, this.plan, this.step, this.evaluate];
  }

  async close(): Promise<void> {
    // A queue closed before its connection is ready rejects with "Connection is closed".
    await Promise.all(
      this.all().map(async (queue) => {
        await queue.waitUntilReady().catch(() => undefined);
        await queue.close();
      }),
    );
  }
}
