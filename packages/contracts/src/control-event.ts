import { z } from "zod";
import { Usage, zeroUsage } from "./usage.ts";
import { LessonRef } from "./handoff-packet.ts";
import { Plan } from "./plan.ts";
import { StepResult } from "./step-result.ts";
import { Verdict } from "./verdict.ts";

const base = { eventId: z.string(), runId: z.string() };
/** What the role spent producing this event, counted by the transition against the run's budget. */
const spent = { usage: Usage.default(zeroUsage) };

/** Everything that can move a run. Each arrives as a job on the control queue. */
export const ControlEvent = z.discriminatedUnion("type", [
  z.object({ ...base, type: z.literal("goal.submitted") }),
  z.object({
    ...base,
    type: z.literal("plan.ready"),
    planNo: z.number().int().positive(),
    plan: Plan,
    usage: Usage,
    lessonsUsed: z.array(LessonRef).default([]),
  }),
  z.object({ ...base, type: z.literal("plan.failed"), planNo: z.number().int().positive(), reason: z.string(), ...spent }),
  /** Sent by workers before `startedAt` existed; a worker now reports its start with `step.finished`. */
  z.object({ ...base, type: z.literal("step.started"), stepId: z.string(), attempt: z.number().int().positive() }),
  z.object({
    ...base,
    type: z.literal("step.finished"),
    stepId: z.string(),
    attempt: z.number().int().positive(),
    result: StepResult,
    /**
     * When the worker took the step (ISO time). Reported here rather than in
     * an event of its own, so the start costs the run no controller cycle.
     */
    startedAt: z.iso.datetime().optional(),
  }),
  z.object({
    ...base,
    type: z.literal("step.errored"),
    stepId: z.string(),
    attempt: z.number().int().positive(),
    reason: z.string(),
    /** `worker_lost`: no worker could keep the step (each died or lost Redis); its checkpoint is intact. */
    cause: z.enum(["worker_lost"]).optional(),
  }),
  z.object({
    ...base,
    type: z.literal("verdict.ready"),
    stepId: z.string(),
    attempt: z.number().int().positive(),
    verdict: Verdict,
    ...spent,
  }),
  z.object({
    ...base,
    type: z.literal("approval.decided"),
    approvalId: z.string(),
    decision: z.enum(["approved", "denied", "expired"]),
  }),
  z.object({
    ...base,
    type: z.literal("context.answered"),
    stepId: z.string(),
    attempt: z.number().int().positive(),
    evidenceIds: z.array(z.string()).default([]),
    refusal: z.string().optional(),
    ...spent,
  }),
  z.object({ ...base, type: z.literal("run.resume"), instruction: z.string().min(1) }),
  z.object({ ...base, type: z.literal("run.cancel"), reason: z.string().default("cancelled by a person") }),
  z.object({ ...base, type: z.literal("deadline") }),
  /**
   * Jobs the run waits for are gone from their queues: lost with a write a
   * crashed Redis master never replicated, or deleted (found by the
   * controller's re-drive sweep), or failed for good after every worker that
   * held them was lost (reported by their role, which removed the job). The
   * controller sends each again with the same job id, or escalates the run.
   */
  z.object({
    ...base,
    type: z.literal("jobs.lost"),
    /** The jobs as the run's `awaiting` field names them (awaited-jobs.ts), or `deadline` for the run's deadline timer. */
    jobs: z.array(z.string()).min(1),
    cause: z.enum(["vanished", "worker_lost"]),
    /** What was seen, in words for the trace and an escalation. */
    reason: z.string(),
    /** The run's version when the sweep found the jobs gone: the event applies only while the run is still at it. */
    seenVersion: z.number().int().nonnegative().optional(),
    /** The result each lost step evaluation judges, which the run's state does not keep: from the step's `step.finished` event or the lost job. */
    stepResults: z.array(StepResult).default([]),
  }),
  /** The controller gave up on an event (its job failed for good): the run fails with the reason instead of waiting for its deadline. */
  z.object({
    ...base,
    type: z.literal("event.failed"),
    failedEventId: z.string(),
    failedEventType: z.string(),
    reason: z.string(),
  }),
]);
export type ControlEvent = z.infer<typeof ControlEvent>;
export type ControlEventType = ControlEvent["type"];
/** A step's result as its worker sends it: to the evaluate queue, where it is applied and judged. */
export type StepFinishedEvent = Extract<ControlEvent, { type: "step.finished" }>;
