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
  z.object({ ...base, type: z.literal("verdict.ready"), stepId: z.string(), attempt: z.number().int().positive(), verdict: Verdict, ...spent }),
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
