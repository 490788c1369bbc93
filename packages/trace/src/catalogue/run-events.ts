import { z } from "zod";
import { RunBudget, GoalKind, Role, Usage } from "@rein/contracts";
import { ApprovalStatus, LessonKind, RunStatus } from "@rein/contracts/run";
import { traceKinds } from "./trace-kind.ts";

const runEnd = z.object({
  reason: z.string(),
  partial: z.boolean(),
  missing: z.array(z.string()),
});

/** A run's life as the intake and the controller record it: submission, status, plans, spend, its end. */
export const runEvents = traceKinds({
  "run.submitted": {
    summary: "A goal was accepted and its run created.",
    emittedBy: "intake",
    payload: z.object({
      goal: z.string(),
      tools: z.array(z.string()),
      budget: RunBudget,
      /** Billed models with no known price, as `provider/model (roles)`: their calls count $0. */
      unpriced: z.array(z.string()).optional(),
      workspace: z.object({ kind: z.string(), source: z.string(), branch: z.string().nullable() }).optional(),
    }),
  },
  "sandbox.disabled": {
    summary: "The run's commands run without a sandbox (config `sandbox: none`).",
    emittedBy: "intake",
    payload: z.object({ warning: z.string() }),
  },
  "run.status_changed": {
    summary: "The controller moved the run from one status to another.",
    emittedBy: "controller",
    payload: z.object({ from: RunStatus, to: RunStatus, event: z.string() }),
  },
  "usage.counted": {
    summary: "Tokens and cost a role spent were counted against the run's budget.",
    emittedBy: "controller",
    payload: z.object({ source: z.string(), role: Role, usage: Usage }),
  },
  "event.ignored": {
    summary: "A control event did not apply to the run's state (duplicate, stale, or the run had ended).",
    emittedBy: "controller",
    payload: z.object({ event: z.string(), eventId: z.string(), reason: z.string() }),
  },
  "transition.failed": {
    summary: "Applying a control event threw; the run fails with the error.",
    emittedBy: "controller",
    payload: z.object({ event: z.string(), eventId: z.string(), error: z.string() }),
  },
  "run.done": { summary: "The run ended with its answer verified.", emittedBy: "controller", payload: runEnd },
  "run.failed": { summary: "The run ended without meeting its goal.", emittedBy: "controller", payload: runEnd },
  "run.cancelled": { summary: "A person cancelled the run.", emittedBy: "controller", payload: runEnd },
  "run.escalated": {
    summary: "The run stopped to wait for a person's instruction.",
    emittedBy: "controller",
    payload: z.object({ reasons: z.array(z.string()).readonly() }),
  },
  "run.resumed": {
    summary: "A person resumed an escalated run with an instruction.",
    emittedBy: "controller",
    payload: z.object({ instruction: z.string() }),
  },
  "run.redriven": {
    summary: "Jobs the run waited for were gone from their queues (a lost write, or every worker holding them lost) and were sent again.",
    emittedBy: "controller",
    payload: z.object({
      cause: z.enum(["vanished", "worker_lost"]),
      reason: z.string(),
      /** Each job sent again, with how many times it has been (this one included). */
      jobs: z.array(z.object({ key: z.string(), queue: z.string(), jobId: z.string(), resend: z.number().int().positive() })),
    }),
  },
  "plan.requested": {
    summary: "The controller asked the planner for the next step.",
    emittedBy: "controller",
    payload: z.object({ planNo: z.number().int(), completedSteps: z.number().int() }),
  },
  "plan.ready": {
    summary: "The planner's plan was accepted.",
    emittedBy: "controller",
    payload: z.object({
      planNo: z.number().int(),
      done: z.boolean(),
      currentStep: z.string().nullable(),
      nextSteps: z.array(z.string()),
      risks: z.array(z.string()),
      lessonsUsed: z.array(z.string()),
      /** What the goal asks for after this plan (said at submit, or by the plan that started the work); null while never said. */
      goalKind: GoalKind.nullable().optional(),
    }),
  },
  "lesson.used": {
    summary: "Lessons from earlier runs were given to the planner.",
    emittedBy: "planner",
    payload: z.object({ lessons: z.array(z.string()) }),
  },
  "lesson.recorded": {
    summary: "A lesson was stored for later runs.",
    emittedBy: "controller",
    payload: z.object({ lessonId: z.string(), kind: LessonKind, signature: z.string() }),
  },
  "answer.proposed": {
    summary: "The planner proposed a final answer; the evaluator checks it next.",
    emittedBy: "controller",
    payload: z.object({
      planNo: z.number().int(),
      attempt: z.number().int(),
      proposedBy: z.literal("planner"),
      claims: z.number().int(),
      gaps: z.number().int(),
    }),
  },
  "approval.decided": {
    summary: "A person approved or denied a tool call that asked for approval.",
    emittedBy: "approvals (CLI, HTTP API)",
    payload: z.object({
      approvalId: z.string(),
      tool: z.string(),
      actionHash: z.string(),
      decision: ApprovalStatus,
      approver: z.string().nullable(),
      note: z.string().nullable(),
      reason: z.string().nullable(),
      decidedAt: z.string().nullable(),
    }),
  },
});
