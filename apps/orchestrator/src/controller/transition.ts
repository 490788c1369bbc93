import { type ControlEvent, errorMessage, FINAL_ANSWER_STEP_ID, isTerminal, type RunState, type StepState } from "@rein/contracts";
import { exceededBudget } from "./budget-policy.ts";
import { countSpend, stopIfOverBudget } from "./budget-prologue.ts";
import { answerContext, applyChildVerdict, askContext, delegate, holdChildOutcome } from "./delegation.ts";
import { applyFinalVerdict, proposeFinalAnswer } from "./final-answer.ts";
import { resendLostJobs } from "./lost-jobs.ts";
import { redispatchOrEscalate } from "./lost-workers.ts";
import { Draft, lastSummary, partialResult } from "./run-draft.ts";
import type { Transition, TransitionSettings } from "./transition-types.ts";

export type { Transition, TransitionSettings } from "./transition-types.ts";

/**
 * The controller's whole decision logic: `(state, event) → (state', effects)`.
 * Pure: no I/O, no clock, no randomness, so it can be tested as a table and
 * replayed after a crash with the same result.
 *
 * Total: it never throws. Whatever a model put into an event is either
 * applied, refused as an observation, or ignored; an unexpected exception
 * fails the run with the error instead of leaving the event to be retried
 * and dropped while the run waits for its deadline.
 */
export function transition(state: RunState, event: ControlEvent, settings: TransitionSettings): Transition {
  if (state.appliedEvents.includes(event.eventId)) return ignored(state, event, "duplicate event");
  try {
    return applyEvent(state, event, settings);
  } catch (error) {
    return failedTransition(state, event, settings, error);
  }
}

function applyEvent(state: RunState, event: ControlEvent, settings: TransitionSettings): Transition {
  const draft = new Draft(state, event, settings);
  const counted = countSpend(draft, event);
  const reason = isTerminal(state.status)
    ? `run is already ${state.status}`
    : stopIfOverBudget(draft, event, counted)
      ? undefined
      : apply(draft, event);
  if (reason === undefined) return draft.finish();
  if (!counted) return ignored(state, event, reason);
  // The event does not apply, but what its role spent still counts: a fresh draft keeps only the spend.
  const spendOnly = new Draft(state, event, settings);
  countSpend(spendOnly, event);
  spendOnly.trace({ kind: "event.ignored", payload: { event: event.type, eventId: event.eventId, reason } });
  return spendOnly.finish();
}

/** An unexpected exception: the run fails with the error, and the trace says which event caused it. */
function failedTransition(state: RunState, event: ControlEvent, settings: TransitionSettings, error: unknown): Transition {
  const reason = `the controller could not apply ${event.type} event ${event.eventId}: ${errorMessage(error)}`;
  try {
    if (isTerminal(state.status)) return ignored(state, event, reason);
    const draft = new Draft(state, event, { ...settings, now: validDate(settings.now, state.updatedAt) });
    draft.trace({ kind: "transition.failed", payload: { event: event.type, eventId: event.eventId, error: errorMessage(error) } });
    draft.finishRun("failed", partialResult(draft.state, reason), reason, { lesson: false });
    return draft.finish();
  } catch {
    // Even the failure could not be written as a transition; the controller reports the event as failed for good.
    return ignored(state, event, reason);
  }
}

/** A clock that cannot be read is replaced by the state's own last update, so the failure can still be dated. */
const validDate = (now: Date, fallback: string): Date => (Number.isNaN(now.getTime()) ? new Date(fallback) : now);

function apply(draft: Draft, event: ControlEvent): string | undefined {
  const { state } = draft;
  switch (event.type) {
    case "goal.submitted": {
      if (state.status !== "planning" || state.planCount !== 0) return "run was already submitted";
      draft.effect({ type: "prepare_workspace" });
      draft.effect({ type: "schedule_deadline", delayMs: state.goal.budget.maxWallMs });
      draft.requestPlan();
      return undefined;
    }
    case "plan.ready": {
      if (state.status !== "planning" || event.planNo !== state.planCount) return `not waiting for plan ${event.planNo}`;
      state.plan = event.plan;
      // Said once: by the submitter, else by the plan that starts the work (plan-checks refuse any other).
      if (state.goal.kind === undefined && event.plan.goal_kind !== undefined && !event.plan.done) state.goal.kind = event.plan.goal_kind;
      state.lessonsUsed = [...new Set([...state.lessonsUsed, ...event.lessonsUsed.map((lesson) => lesson.id)])];
      draft.trace({
        kind: "plan.ready",
        payload: {
          planNo: event.planNo,
          done: event.plan.done,
          currentStep: event.plan.current_step?.title ?? null,
          nextSteps: event.plan.next_steps,
          risks: event.plan.risks,
          lessonsUsed: event.lessonsUsed.map((lesson) => lesson.id),
          goalKind: state.goal.kind ?? null,
        },
      });
      if (event.plan.done) {
        proposeFinalAnswer(draft, event.planNo, event.plan.answer ?? { answer: lastSummary(state), claims: [], gaps: [] });
        return undefined;
      }
      const spec = event.plan.current_step;
      if (!spec) return "plan has no current step";
      const step: StepState = {
        stepId: `s${state.steps.length + 1}`,
        spec,
        attempt: 1,
        phase: "dispatched",
        parentStepId: null,
        depth: 0,
        usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
        resumes: 0,
        redispatches: 0,
        attemptFingerprints: [],
      };
      state.steps.push(step);
      draft.dispatch(step);
      return undefined;
    }
    case "plan.failed": {
      if (state.status !== "planning" || event.planNo !== state.planCount) return `not waiting for plan ${event.planNo}`;
      draft.finishRun("failed", partialResult(state, `planning failed: ${event.reason}`), `planning failed: ${event.reason}`);
      return undefined;
    }
    case "step.started": {
      const step = draft.currentStep(event.stepId, event.attempt);
      if (step?.phase !== "dispatched") return "step is not waiting to start";
      step.phase = "executing";
      draft.setStatus("executing");
      draft.trace({ kind: "step.started", payload: { attempt: event.attempt } }, step);
      return undefined;
    }
    case "step.finished": {
      const step = draft.currentStep(event.stepId, event.attempt);
      if (!step || (step.phase !== "dispatched" && step.phase !== "executing")) return "step is not running";
      if (step.phase === "dispatched") draft.markStarted(step, event.startedAt);
      draft.recordResult(step, event.result);
      // The worker reported past its resume: a later dispatch must not hand it back.
      step.resumeInput = undefined;
      if (event.result.status === "needs_approval" && event.result.suspension?.kind === "approval") {
        step.phase = "suspended";
        step.awaitingApprovalId = event.result.suspension.approvalId;
        state.pendingApprovals = [...new Set([...state.pendingApprovals, event.result.suspension.approvalId])];
        draft.setStatus("waiting_approval");
        draft.effect({
          type: "schedule_approval_expiry",
          approvalId: event.result.suspension.approvalId,
          delayMs: draft.settings.approvalTtlMs,
        });
        draft.trace(
          {
            kind: "step.suspended",
            payload: { reason: "approval", approvalId: event.result.suspension.approvalId, tool: event.result.suspension.tool },
          },
          step,
        );
        return undefined;
      }
      if (event.result.status === "delegated" && event.result.suspension?.kind === "delegate") {
        delegate(draft, step, event.result, event.result.suspension);
        return undefined;
      }
      if (event.result.status === "needs_context" && event.result.suspension?.kind === "context") {
        askContext(draft, step, event.result.suspension);
        return undefined;
      }
      if (step.parentStepId !== null) holdChildOutcome(step, event.result);
      draft.evaluate(step, step.parentStepId === null ? "step" : "child");
      return undefined;
    }
    case "step.errored": {
      const step = draft.currentStep(event.stepId, event.attempt);
      if (!step) return "step is not running";
      // A job that stalled for good after its worker had sent the result: the step is past it.
      if (step.phase !== "dispatched" && step.phase !== "executing") return `step is ${step.phase}: its result was already applied`;
      if (event.cause === "worker_lost") {
        redispatchOrEscalate(draft, step, event.reason);
        return undefined;
      }
      step.phase = "failed";
      draft.trace({ kind: "step.errored", payload: { reason: event.reason } }, step);
      draft.finishRun("failed", partialResult(state, `step ${step.stepId} could not run: ${event.reason}`), event.reason);
      return undefined;
    }
    case "verdict.ready": {
      if (event.stepId === FINAL_ANSWER_STEP_ID) return applyFinalVerdict(draft, event.attempt, event.verdict);
      const step = draft.currentStep(event.stepId, event.attempt);
      if (step?.phase !== "evaluating" || state.status !== "evaluating") return "not waiting for this verdict";
      if (step.parentStepId !== null) applyChildVerdict(draft, step, event.verdict);
      else draft.applyVerdict(step, event.verdict);
      return undefined;
    }
    case "approval.decided": {
      const step = state.steps.find((candidate) => candidate.awaitingApprovalId === event.approvalId);
      if (state.status !== "waiting_approval" || !step) return "no step waits on this approval";
      state.pendingApprovals = state.pendingApprovals.filter((id) => id !== event.approvalId);
      step.awaitingApprovalId = undefined;
      step.resumeInput = { kind: "approval", approvalId: event.approvalId, decision: event.decision };
      step.resumes += 1;
      if (event.decision !== "expired") draft.effect({ type: "withdraw_approval_expiry", approvalId: event.approvalId });
      draft.trace({ kind: "step.resumed", payload: { reason: "approval", approvalId: event.approvalId, decision: event.decision } }, step);
      draft.dispatch(step, { countsAsStep: false });
      return undefined;
    }
    case "context.answered": {
      const step = draft.currentStep(event.stepId, event.attempt);
      if (!step?.awaitingContext) return "no step waits for this answer";
      answerContext(draft, step, event.evidenceIds, event.refusal);
      return undefined;
    }
    case "run.resume": {
      if (state.status !== "escalated") return `only an escalated run can be resumed; this one is ${state.status}`;
      state.instruction = event.instruction;
      draft.trace({ kind: "run.resumed", payload: { instruction: event.instruction } });
      draft.requestPlan();
      return undefined;
    }
    case "run.cancel": {
      draft.finishRun("cancelled", partialResult(state, `cancelled: ${event.reason}`), event.reason);
      return undefined;
    }
    case "deadline": {
      const spent = exceededBudget(state, draft.settings.now, { newStep: false });
      if (!spent) return "deadline not reached";
      draft.finishRun("failed", partialResult(state, spent), spent);
      return undefined;
    }
    case "jobs.lost":
      return resendLostJobs(draft, event);
    case "event.failed": {
      const reason = `the controller could not apply ${event.failedEventType} event ${event.failedEventId}: ${event.reason}`;
      draft.finishRun("failed", partialResult(state, reason), reason);
      return undefined;
    }
  }
}

function ignored(state: RunState, event: ControlEvent, reason: string): Transition {
  return {
    state,
    effects: [],
    applied: false,
    trace: [{ runId: state.runId, kind: "event.ignored", payload: { event: event.type, eventId: event.eventId, reason } }],
  };
}
