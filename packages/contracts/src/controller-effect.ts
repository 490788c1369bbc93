import { z } from "zod";
import { PacketBody } from "./handoff-packet.ts";
import { ContextJob, EvaluateRequest, PlanJob } from "./jobs.ts";
import { Lesson } from "./lesson.ts";

/**
 * What the controller must do after a transition. Effects are stored with
 * the state they came from (the outbox), so a controller that crashed after
 * writing state re-performs them; derived job ids make that harmless.
 */
export const ControllerEffect = z.discriminatedUnion("type", [
  z.object({ type: z.literal("prepare_workspace") }),
  z.object({ type: z.literal("schedule_deadline"), delayMs: z.number().int().nonnegative() }),
  z.object({ type: z.literal("enqueue_plan"), job: PlanJob }),
  z.object({ type: z.literal("dispatch_step"), jobId: z.string(), body: PacketBody }),
  /** A step's result is not copied here: it is the step.finished event's (see StepEvaluateRequest). */
  z.object({ type: z.literal("enqueue_evaluate"), job: EvaluateRequest }),
  z.object({ type: z.literal("enqueue_context_request"), job: ContextJob }),
  /** An approval nobody decides in time counts as denied. */
  z.object({ type: z.literal("schedule_approval_expiry"), approvalId: z.string(), delayMs: z.number().int().nonnegative() }),
  /** A person decided in time: the approval's expiry leaves the control queue instead of firing, to be ignored, later. */
  z.object({ type: z.literal("withdraw_approval_expiry"), approvalId: z.string() }),
  /** Store a lesson; its id is derived from the run, so writing it twice changes nothing. */
  z.object({ type: z.literal("record_lesson"), lesson: Lesson }),
  /** Steps a join no longer needs (siblings of a failed `all` group, losers of an `any` group): their workers stop them. */
  z.object({ type: z.literal("cancel_steps"), stepIds: z.array(z.string()).min(1), reason: z.string() }),
  /** The run ended: its keys expire per `retention.runTtlSeconds`, and its deadline and approval expiries are withdrawn. */
  z.object({ type: z.literal("retire_run") }),
]);
export type ControllerEffect = z.infer<typeof ControllerEffect>;
