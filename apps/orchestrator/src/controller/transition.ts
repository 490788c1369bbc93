import {
  addUsage,
  type ControlEvent,
  type ControllerEffect,
  type EvidenceEntry,
  FinalAnswer,
  hashOf,
  type Lesson,
  isTerminal,
  jobIds,
  type RunResult,
  type RunState,
  type RunStatus,
  type StepResult,
  type StepState,
  totalTokens,
  type TraceEventInput,
  type Verdict,
} from "@rein/core";
import { exceededBudget } from "./budget-policy.ts";
import { answerContext, askContext, delegate, returnToParent } from "./delegation.ts";
import { packetBodyOf } from "./packet-body.ts";
import { planJobOf } from "./planner-context.ts";
import { resolvedEscalationLesson, runFailedLesson } from "./run-lessons.ts";

export interface TransitionSettings {
  now: Date;
  /** The deepest a delegation chain may go. @defaultValue 3 */
  maxDepth?: number;
  packetTtlMs: number;
  /** How long an approval waits for a person before it counts as denied. */
  approvalTtlMs: number;
}

export interface Transition {
  state: RunState;
  effects: ControllerEffect[];
  trace: TraceEventInput[];
  /** False when the event did not apply (stale, duplicate, or wrong status); nothing is written. */
  applied: boolean;
}

const APPLIED_EVENTS_KEPT = 50;
const SUMMARY_CHARS = 160;

/**
 * The controller's whole decision logic: `(state, event) → (state', effects)`.
 * Pure: no I/O, no clock, no randomness, so it can be tested as a table and
 * replayed after a crash with the same result.
 */
export function transition(state: RunState, event: ControlEvent, settings: TransitionSettings): Transition {
  if (state.appliedEvents.includes(event.eventId)) return ignored(state, event, "duplicate event");
  if (isTerminal(state.status)) return ignored(state, event, `run is already ${state.status}`);
  const draft = new Draft(state, event, settings);
  const reason = apply(draft, event);
  if (reason !== undefined) return ignored(state, event, reason);
  return draft.finish();
}

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
      draft.spend(event.usage);
      state.plan = event.plan;
      state.lessonsUsed = [...new Set([...state.lessonsUsed, ...event.lessonsUsed.map((lesson) => lesson.id)])];
      draft.trace("plan.ready", {
        planNo: event.planNo,
        done: event.plan.done,
        currentStep: event.plan.current_step?.title ?? null,
        nextSteps: event.plan.next_steps,
        risks: event.plan.risks,
        lessonsUsed: event.lessonsUsed.map((lesson) => lesson.id),
      });
      if (event.plan.done) {
        draft.finishRun("done", {
          answer: event.plan.answer ?? null,
          summary: event.plan.answer?.answer ?? lastSummary(state),
          partial: false,
          missing: [],
        }, "the planner found the goal met");
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
      if (!step || step.phase !== "dispatched") return "step is not waiting to start";
      step.phase = "executing";
      draft.setStatus("executing");
      draft.trace("step.started", { attempt: event.attempt }, step);
      return undefined;
    }
    case "step.finished": {
      const step = draft.currentStep(event.stepId, event.attempt);
      if (!step || (step.phase !== "dispatched" && step.phase !== "executing")) return "step is not running";
      draft.recordResult(step, event.result);
      if (event.result.status === "needs_approval" && event.result.suspension?.kind === "approval") {
        step.phase = "suspended";
        step.awaitingApprovalId = event.result.suspension.approvalId;
        state.pendingApprovals = [...new Set([...state.pendingApprovals, event.result.suspension.approvalId])];
        draft.setStatus("waiting_approval");
        draft.effect({ type: "schedule_approval_expiry", approvalId: event.result.suspension.approvalId, delayMs: draft.settings.approvalTtlMs });
        draft.trace("step.suspended", { reason: "approval", approvalId: event.result.suspension.approvalId, tool: event.result.suspension.tool }, step);
        return undefined;
      }
      if (event.result.status === "delegated" && event.result.suspension?.kind === "delegate") {
        delegate(draft, step, event.result, event.result.suspension);
        return undefined;
      }
      if (event.result.status === "needs_context" && event.result.suspension?.kind === "context") {
        askContext(draft, step, event.result.suspension.question);
        return undefined;
      }
      if (step.parentStepId !== null) {
        returnToParent(draft, step, event.result);
        return undefined;
      }
      step.phase = "evaluating";
      draft.setStatus("evaluating");
      draft.effect({
        type: "enqueue_evaluate",
        job: {
          runId: state.runId,
          stepId: step.stepId,
          attempt: step.attempt,
          spec: step.spec,
          result: event.result,
          knownEvidenceIds: state.evidence.map((entry) => entry.id),
          priorFingerprints: step.attemptFingerprints.slice(0, -1),
          priorFailedFingerprints: (step.attemptFailedFingerprints ?? []).slice(0, -1).flat(),
          goal: state.goal.text,
          feedback: step.feedback,
          risks: state.plan?.risks ?? [],
        },
      });
      return undefined;
    }
    case "step.errored": {
      const step = draft.currentStep(event.stepId, event.attempt);
      if (!step) return "step is not running";
      step.phase = "failed";
      draft.trace("step.errored", { reason: event.reason }, step);
      draft.finishRun("failed", partialResult(state, `step ${step.stepId} could not run: ${event.reason}`), event.reason);
      return undefined;
    }
    case "verdict.ready": {
      const step = draft.currentStep(event.stepId, event.attempt);
      if (!step || step.phase !== "evaluating" || state.status !== "evaluating") return "not waiting for this verdict";
      draft.applyVerdict(step, event.verdict);
      return undefined;
    }
    case "approval.decided": {
      const step = state.steps.find((candidate) => candidate.awaitingApprovalId === event.approvalId);
      if (state.status !== "waiting_approval" || !step) return "no step waits on this approval";
      state.pendingApprovals = state.pendingApprovals.filter((id) => id !== event.approvalId);
      step.awaitingApprovalId = undefined;
      step.resumeInput = { kind: "approval", approvalId: event.approvalId, decision: event.decision };
      step.resumes += 1;
      draft.trace("step.resumed", { reason: "approval", approvalId: event.approvalId, decision: event.decision }, step);
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
      draft.trace("run.resumed", { instruction: event.instruction });
      draft.requestPlan();
      return undefined;
    }
    case "run.cancel": {
      draft.finishRun("cancelled", partialResult(state, `cancelled: ${event.reason}`), event.reason);
      return undefined;
    }
    case "deadline": {
      const spent = exceededBudget(state, draft.settings.now);
      if (!spent) return "deadline not reached";
      draft.finishRun("failed", partialResult(state, spent), spent);
      return undefined;
    }
  }
}

class Draft {
  readonly state: RunState;
  private readonly effects: ControllerEffect[] = [];
  private readonly events: TraceEventInput[] = [];
  private readonly startStatus: RunStatus;

  constructor(
    original: RunState,
    private readonly event: ControlEvent,
    readonly settings: TransitionSettings,
  ) {
    this.state = structuredClone(original);
    this.startStatus = original.status;
  }

  effect(effect: ControllerEffect): void {
    this.effects.push(effect);
  }

  trace(kind: string, payload: Record<string, unknown>, step?: StepState): void {
    this.events.push({
      runId: this.state.runId,
      stepId: step?.stepId ?? null,
      parentStepId: step?.parentStepId ?? null,
      kind,
      ts: this.settings.now.toISOString(),
      payload,
    });
  }

  setStatus(status: RunStatus): void {
    this.state.status = status;
  }

  spend(usage: RunState["usage"]): void {
    this.state.usage = addUsage(this.state.usage, usage);
    this.state.spent.tokens += totalTokens(usage);
    this.state.spent.costUsd += usage.costUsd;
  }

  currentStep(stepId: string, attempt: number): StepState | undefined {
    const step = this.state.steps.find((candidate) => candidate.stepId === stepId);
    return step && step.attempt === attempt ? step : undefined;
  }

  requestPlan(): void {
    const spent = exceededBudget(this.state, this.settings.now);
    if (spent) {
      this.finishRun("failed", partialResult(this.state, spent), spent);
      return;
    }
    this.state.planCount += 1;
    this.setStatus("planning");
    const job = planJobOf(this.state);
    this.effect({ type: "enqueue_plan", job });
    this.trace("plan.requested", { planNo: job.planNo, completedSteps: job.context.completedSteps.length });
  }

  dispatch(step: StepState, options: { countsAsStep?: boolean } = {}): void {
    if (options.countsAsStep !== false) {
      const spent = exceededBudget(this.state, this.settings.now);
      if (spent) {
        step.phase = "failed";
        this.finishRun("failed", partialResult(this.state, spent), spent);
        return;
      }
      this.state.spent.steps += 1;
    }
    step.phase = "dispatched";
    this.setStatus("dispatching");
    const body = packetBodyOf(this.state, step, { now: this.settings.now, ttlMs: this.settings.packetTtlMs });
    step.resumeInput = undefined;
    this.effect({ type: "dispatch_step", jobId: jobIds.step(this.state.runId, step.stepId, step.attempt, step.resumes), body });
    this.trace(
      "step.dispatched",
      {
        title: step.spec.title,
        attempt: step.attempt,
        resume: step.resumes,
        depth: step.depth,
        packetHash: hashOf(body),
        // The whole body: what the worker could know, and what `rein replay --step` re-signs.
        packet: body,
        tools: body.surface.map((grant) => grant.name),
        scopes: Object.fromEntries(body.surface.map((grant) => [grant.name, grant.scope])),
        evidence: body.evidence.map((entry) => entry.id),
        feedback: step.feedback ?? null,
      },
      step,
    );
  }

  recordResult(step: StepState, result: StepResult): void {
    step.usage = addUsage(step.usage, result.usage);
    step.summary = result.summary.slice(0, 500);
    this.spend(result.usage);
    if (result.status !== "needs_approval") {
      step.attemptFingerprints.push(result.fingerprints);
      step.attemptFailedFingerprints = [...(step.attemptFailedFingerprints ?? []), result.toolCalls.filter((call) => call.status !== "ok").map((call) => call.fingerprint)];
    }
    const answer = FinalAnswer.safeParse(result.output);
    if (step.spec.output_contract.format === "answer" && answer.success) step.answer = answer.data;
    const known = new Set(this.state.evidence.map((entry) => entry.id));
    const added: EvidenceEntry[] = result.observations
      .filter((observation) => !known.has(observation.id))
      .map((observation) => ({
        id: observation.id,
        stepId: step.stepId,
        tool: observation.tool,
        summary: oneLine(observation.content),
      }));
    this.state.evidence.push(...added);
    this.trace(
      "step.finished",
      { status: result.status, attempt: step.attempt, turns: result.turns, observations: added.map((entry) => entry.id), error: result.error ?? null },
      step,
    );
  }

  applyVerdict(step: StepState, verdict: Verdict): void {
    const state = this.state;
    step.decision = verdict.decision;
    state.verdicts.push({
      stepId: step.stepId,
      attempt: step.attempt,
      decision: verdict.decision,
      reasons: verdict.reasons,
      feedback: verdict.feedback,
    });
    this.trace("verdict.ready", { decision: verdict.decision, reasons: verdict.reasons, feedback: verdict.feedback ?? null, checks: verdict.checks }, step);
    this.recordLessons(step, verdict);
    switch (verdict.decision) {
      case "continue":
        step.phase = "completed";
        this.requestPlan();
        return;
      case "retry":
        step.attempt += 1;
        step.resumes = 0;
        step.feedback = verdict.feedback ?? verdict.reasons.join("; ");
        this.dispatch(step);
        return;
      case "replan":
        step.phase = "failed";
        this.requestPlan();
        return;
      case "escalate":
        step.phase = "failed";
        this.setStatus("escalated");
        state.stopReason = `escalated: ${verdict.reasons.join("; ")}`;
        this.trace("run.escalated", { reasons: verdict.reasons });
        return;
      case "done":
        step.phase = "completed";
        this.finishRun("done", doneResult(state, step, verdict), "the evaluator found the goal met");
        return;
      case "fail":
        step.phase = "failed";
        this.finishRun("failed", partialResult(state, verdict.reasons.join("; ")), verdict.reasons.join("; "));
        return;
    }
  }

  finishRun(status: "done" | "failed" | "cancelled", result: RunResult, reason: string): void {
    this.state.status = status;
    this.state.result = result;
    this.state.stopReason = reason;
    this.trace(`run.${status}`, { reason, partial: result.partial, missing: result.missing });
    if (status === "failed") this.recordLesson(runFailedLesson(this.state, reason, this.settings.now));
  }

  /** Lessons a verdict brings (a step resolved after a retry) or completes (an escalation resolved by a reply). */
  private recordLessons(step: StepState, verdict: Verdict): void {
    if (verdict.lesson) this.recordLesson(verdict.lesson, step);
    if (verdict.decision === "continue" || verdict.decision === "done") {
      const lesson = resolvedEscalationLesson(this.state, step, this.settings.now);
      if (lesson) this.recordLesson(lesson, step);
    }
  }

  private recordLesson(lesson: Lesson, step?: StepState): void {
    this.effect({ type: "record_lesson", lesson });
    this.trace("lesson.recorded", { lessonId: lesson.lessonId, kind: lesson.kind, signature: lesson.signature }, step);
  }

  finish(): Transition {
    const { state } = this;
    state.version += 1;
    state.updatedAt = this.settings.now.toISOString();
    state.appliedEvents = [...state.appliedEvents, this.event.eventId].slice(-APPLIED_EVENTS_KEPT);
    state.outbox = this.effects;
    if (this.startStatus !== state.status) {
      this.events.unshift({
        runId: state.runId,
        kind: "run.status_changed",
        ts: this.settings.now.toISOString(),
        payload: { from: this.startStatus, to: state.status, event: this.event.type },
      });
    }
    return { state, effects: this.effects, trace: this.events, applied: true };
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

/** The first line of what a tool returned; the runtime's preamble before an untrusted-data fence is skipped. */
function oneLine(text: string): string {
  const fence = /^<<<untrusted-data [0-9a-f]+>>>$/m.exec(text);
  const body = fence ? text.slice(fence.index + fence[0].length) : text;
  const line = body.split("\n").find((candidate) => candidate.trim().length > 0) ?? "";
  return line.length > SUMMARY_CHARS ? `${line.slice(0, SUMMARY_CHARS)}…` : line;
}

function lastSummary(state: RunState): string {
  return state.steps.at(-1)?.summary ?? "";
}

/** The evaluator's amended answer (unbacked claims moved to gaps) wins over the worker's own. */
function doneResult(state: RunState, step: StepState, verdict: Verdict): RunResult {
  return { answer: verdict.answer ?? step.answer ?? state.plan?.answer ?? null, summary: step.summary ?? "", partial: false, missing: [] };
}

/** What a run that stops early still has, and what it lacks. */
function partialResult(state: RunState, why: string): RunResult {
  const done = state.steps.filter((step) => step.phase === "completed").map((step) => `${step.spec.title}: ${step.summary ?? ""}`);
  const current = state.steps.find((step) => step.phase !== "completed");
  const missing = [
    ...(current ? [`step ${current.stepId} "${current.spec.title}" did not complete`] : []),
    ...(state.plan?.next_steps ?? []).map((title) => `planned but not started: ${title}`),
  ];
  return { answer: null, summary: done.length > 0 ? `${why}. Completed: ${done.join(" | ")}` : why, partial: true, missing };
}
