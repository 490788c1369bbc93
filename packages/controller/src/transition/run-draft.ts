import { addUsage, FinalAnswer, hashOf, type Role, type StepResult, totalTokens, type Usage, zeroUsage } from "@rein/contracts";
import type { EvidenceEntry, Lesson, RunResult, RunState, RunStatus, StepState, Verdict } from "@rein/contracts/run";
import type { ControlEvent, ControllerEffect, StepEvaluateJob } from "@rein/contracts/messages";
import type { Observation } from "@rein/contracts/calls";
import { untrustedDataOf } from "@rein/presenter";
import { jobIds } from "@rein/runtime";
import type { TraceEventBody, TraceEventInput } from "@rein/trace";
import { exceededBudget } from "./budget-policy.ts";
import { stepEvaluateRequestOf } from "./evaluate-jobs.ts";
import { packetBodyOf } from "./packet-body.ts";
import { planJobOf } from "./planner-context.ts";
import { maxParallelOf } from "./fan-out.ts";
import { outputEvidenceOf, rejectOutputEvidence } from "./step-output-evidence.ts";
import { resolvedEscalationLesson, runFailedLesson } from "./run-lessons.ts";
import type { Transition, TransitionSettings } from "./transition-types.ts";

const APPLIED_EVENTS_KEPT = 50;
const SUMMARY_CHARS = 160;

/** Why a run ended `done`: only ever an evaluator's verdict over the final answer. */
export const VERIFIED_REASON = "the evaluator verified the answer";

/**
 * A transition in the making: a copy of the state that the event's handler
 * changes, and the effects and trace events it adds. \`finish\` seals it.
 */
export class Draft {
  readonly state: RunState;
  private readonly effects: ControllerEffect[] = [];
  private readonly events: TraceEventInput[] = [];
  /** Events that happened before this event's own status change (a start reported late). */
  private readonly earlier: TraceEventInput[] = [];
  private startStatus: RunStatus;

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

  trace(body: TraceEventBody, step?: StepState): void {
    this.events.push({
      runId: this.state.runId,
      stepId: step?.stepId ?? null,
      parentStepId: step?.parentStepId ?? null,
      ts: this.settings.now.toISOString(),
      ...body,
    });
  }

  setStatus(status: RunStatus): void {
    this.state.status = status;
  }

  /**
   * Counts a role's spend against the run and records it in the trace as
   * `usage.counted`, so the trace's totals are the state's.
   * @returns whether there was anything to count
   */
  spend(usage: Usage, counted: { source: ControlEvent["type"]; role: Role; stepId?: string }): boolean {
    if (isZero(usage)) return false;
    this.state.usage = addUsage(this.state.usage, usage);
    this.state.spent.tokens += totalTokens(usage);
    this.state.spent.costUsd += usage.costUsd;
    this.events.push({
      runId: this.state.runId,
      stepId: counted.stepId ?? null,
      kind: "usage.counted",
      ts: this.settings.now.toISOString(),
      payload: { source: counted.source, role: counted.role, usage },
    });
    return true;
  }

  /**
   * A worker reports its attempt's usage so far (cumulative across resumes);
   * only what is new since the attempt's last report counts.
   */
  spendStep(step: StepState, attemptUsage: Usage): boolean {
    const fresh = usageSince(attemptUsage, step.attemptUsage ?? zeroUsage());
    step.attemptUsage = attemptUsage;
    step.usage = addUsage(step.usage, fresh);
    return this.spend(fresh, { source: "step.finished", role: "worker", stepId: step.stepId });
  }

  /**
   * Records that a worker took the step at `startedAt` (its report, or now):
   * the step and run were executing from then on. The trace gets the start
   * and the status change with that time, ahead of this event's own.
   */
  markStarted(step: StepState, startedAt: string | undefined): void {
    const ts = startedAt ?? this.settings.now.toISOString();
    step.phase = "executing";
    if (this.state.status === "dispatching") {
      this.earlier.push({
        runId: this.state.runId,
        kind: "run.status_changed",
        ts,
        payload: { from: this.startStatus, to: "executing", event: this.event.type },
      });
      this.startStatus = "executing";
      this.state.status = "executing";
    }
    this.earlier.push({
      runId: this.state.runId,
      stepId: step.stepId,
      parentStepId: step.parentStepId,
      kind: "step.started",
      ts,
      payload: { attempt: step.attempt },
    });
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
    const job = planJobOf(this.state, { maxParallel: maxParallelOf(this.state, this.settings) });
    this.effect({ type: "enqueue_plan", job });
    this.trace({ kind: "plan.requested", payload: { planNo: job.planNo, completedSteps: job.context.completedSteps.length } });
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
    this.effect({ type: "dispatch_step", jobId: jobIds.step(this.state.runId, step.stepId, step.attempt, step.resumes), body });
    this.trace(
      {
        kind: "step.dispatched",
        payload: {
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
      },
      step,
    );
  }

  recordResult(step: StepState, result: StepResult): void {
    step.summary = result.summary.slice(0, 500);
    if (result.status !== "needs_approval") {
      step.attemptFingerprints.push(result.fingerprints);
      step.attemptFailedFingerprints = [
        ...(step.attemptFailedFingerprints ?? []),
        result.toolCalls.filter((call) => call.status !== "ok").map((call) => call.fingerprint),
      ];
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
        summary: evidenceSummary(observation),
        status: observation.status,
      }));
    const output = outputEvidenceOf(step, result);
    if (output && !known.has(output.id)) added.push(output);
    this.state.evidence.push(...added);
    this.trace(
      {
        kind: "step.finished",
        payload: {
          status: result.status,
          attempt: step.attempt,
          turns: result.turns,
          observations: added.map((entry) => entry.id),
          error: result.error ?? null,
        },
      },
      step,
    );
  }

  /** Hands the step.finished event's result to the evaluator; the run waits for its verdict. */
  evaluate(step: StepState, kind: StepEvaluateJob["kind"]): void {
    step.phase = "evaluating";
    this.setStatus("evaluating");
    this.effect({ type: "enqueue_evaluate", job: stepEvaluateRequestOf(this.state, step, kind) });
  }

  /** Keeps a verdict in the run's history and trace; a step's verdict may bring lessons. */
  recordVerdict(verdict: Verdict, step?: StepState): void {
    if (step) step.decision = verdict.decision;
    this.state.verdicts.push({
      stepId: verdict.stepId,
      attempt: verdict.attempt,
      decision: verdict.decision,
      reasons: verdict.reasons,
      feedback: verdict.feedback,
    });
    this.trace(
      {
        kind: "verdict.ready",
        payload: {
          decision: verdict.decision,
          reasons: verdict.reasons,
          feedback: verdict.feedback ?? null,
          checks: verdict.checks,
          ...(verdict.claims ? { claims: verdict.claims } : {}),
          // A verdict over the planner's proposed answer belongs to no step.
          ...(step ? {} : { subject: "final_answer", attempt: verdict.attempt }),
        },
      },
      step,
    );
    if (step) this.recordLessons(step, verdict);
  }

  applyVerdict(step: StepState, verdict: Verdict): void {
    const state = this.state;
    this.recordVerdict(verdict, step);
    if (verdict.decision !== "continue" && verdict.decision !== "done") rejectOutputEvidence(state, step);
    switch (verdict.decision) {
      case "continue":
        step.phase = "completed";
        this.requestPlan();
        return;
      case "retry":
        this.retry(step, verdict);
        return;
      case "replan":
        step.phase = "failed";
        this.requestPlan();
        return;
      case "escalate":
        step.phase = "failed";
        this.escalate(verdict.reasons);
        return;
      case "done":
        step.phase = "completed";
        this.finishRun("done", doneResult(state, step, verdict), VERIFIED_REASON);
        return;
      case "fail":
        step.phase = "failed";
        this.fail(verdict.reasons.join("; "));
        return;
    }
  }

  retry(step: StepState, verdict: Verdict): void {
    step.attempt += 1;
    step.resumes = 0;
    step.redispatches = 0;
    step.attemptUsage = undefined;
    step.feedback = verdict.feedback ?? verdict.reasons.join("; ");
    this.dispatch(step);
  }

  escalate(reasons: readonly string[]): void {
    this.setStatus("escalated");
    this.state.stopReason = `escalated: ${reasons.join("; ")}`;
    this.trace({ kind: "run.escalated", payload: { reasons } });
  }

  fail(reason: string): void {
    this.finishRun("failed", partialResult(this.state, reason), reason);
  }

  /** Ends the run; a step still in flight is cancelled, so no step is left running in a finished run. */
  finishRun(status: "done" | "failed" | "cancelled", result: RunResult, reason: string, options: { lesson?: boolean } = {}): void {
    this.state.status = status;
    this.state.result = result;
    this.state.stopReason = reason;
    for (const step of this.state.steps) {
      if (step.phase !== "completed" && step.phase !== "failed") step.phase = "cancelled";
    }
    this.trace({ kind: `run.${status}`, payload: { reason, partial: result.partial, missing: result.missing } });
    if (status === "failed" && options.lesson !== false) this.recordLesson(runFailedLesson(this.state, reason, this.settings.now));
    this.effect({ type: "retire_run" });
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
    this.trace({ kind: "lesson.recorded", payload: { lessonId: lesson.lessonId, kind: lesson.kind, signature: lesson.signature } }, step);
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
    return { state, effects: this.effects, trace: [...this.earlier, ...this.events], applied: true };
  }
}

/**
 * The first line of a tool's data (its output or error; the runtime's
 * preamble is not data), marked with how the call ended when it did not
 * succeed. Still outside text: every prompt shows it through the presenter.
 */
function evidenceSummary(observation: Observation): string {
  const line =
    untrustedDataOf(observation.content)
      .split("\n")
      .find((candidate) => candidate.trim().length > 0) ?? "";
  const cut = line.length > SUMMARY_CHARS ? `${line.slice(0, SUMMARY_CHARS)}…` : line;
  return observation.status === "ok" ? cut : `[${observation.status}] ${cut}`;
}

const USAGE_FIELDS = ["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "costUsd"] as const;

const isZero = (usage: Usage): boolean => USAGE_FIELDS.every((field) => usage[field] === 0);

/** What `total` adds to `before`, never negative (a report can only grow within an attempt). */
function usageSince(total: Usage, before: Usage): Usage {
  return Object.fromEntries(USAGE_FIELDS.map((field) => [field, Math.max(0, total[field] - before[field])])) as Usage;
}

export function lastSummary(state: RunState): string {
  return state.steps.at(-1)?.summary ?? "";
}

/** The evaluator's amended answer (unbacked claims moved to gaps) wins over the worker's own. */
function doneResult(state: RunState, step: StepState, verdict: Verdict): RunResult {
  return {
    answer: verdict.answer ?? step.answer ?? state.plan?.answer ?? null,
    summary: step.summary ?? "",
    partial: false,
    missing: [],
    claims: verdict.claims ?? [],
  };
}

/** What a run that stops early still has, and what it lacks. */
export function partialResult(state: RunState, why: string): RunResult {
  const done = state.steps.filter((step) => step.phase === "completed").map((step) => `${step.spec.title}: ${step.summary ?? ""}`);
  const current = state.steps.find((step) => step.phase !== "completed");
  const missing = [
    ...(current ? [`step ${current.stepId} "${current.spec.title}" did not complete`] : []),
    ...(state.plan?.next_steps ?? []).map((title) => `planned but not started: ${title}`),
  ];
  return { answer: null, summary: done.length > 0 ? `${why}. Completed: ${done.join(" | ")}` : why, partial: true, missing, claims: [] };
}
