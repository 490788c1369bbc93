import type { ControlEvent } from "@rein/contracts/messages";
import type { Draft } from "../run-draft.ts";
import { onGoalSubmitted } from "./on-goal-submitted.ts";
import { onPlanReady } from "./on-plan-ready.ts";
import { onPlanFailed } from "./on-plan-failed.ts";
import { onStepStarted } from "./on-step-started.ts";
import { onStepFinished } from "./on-step-finished.ts";
import { onStepErrored } from "./on-step-errored.ts";
import { onVerdictReady } from "./on-verdict-ready.ts";
import { onApprovalDecided } from "./on-approval-decided.ts";
import { onContextAnswered } from "./on-context-answered.ts";
import { onRunResume } from "./on-run-resume.ts";
import { onRunCancel } from "./on-run-cancel.ts";
import { onDeadline } from "./on-deadline.ts";
import { onJobsLost } from "./on-jobs-lost.ts";
import { onEventFailed } from "./on-event-failed.ts";
import type { EventOf } from "./event-of.ts";

/** Applies one kind of event to a draft of the run; returns why the event does not apply, or nothing when it did. */
export type EventHandler<Kind extends ControlEvent["type"]> = (draft: Draft, event: EventOf<Kind>) => string | undefined;

/** One handler per kind of control event; a kind without one does not compile. */
export const EVENT_HANDLERS: { readonly [Kind in ControlEvent["type"]]: EventHandler<Kind> } = {
  "goal.submitted": onGoalSubmitted,
  "plan.ready": onPlanReady,
  "plan.failed": onPlanFailed,
  "step.started": onStepStarted,
  "step.finished": onStepFinished,
  "step.errored": onStepErrored,
  "verdict.ready": onVerdictReady,
  "approval.decided": onApprovalDecided,
  "context.answered": onContextAnswered,
  "run.resume": onRunResume,
  "run.cancel": onRunCancel,
  deadline: onDeadline,
  "jobs.lost": onJobsLost,
  "event.failed": onEventFailed,
};
