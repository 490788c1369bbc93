import {
  type DelegationRequest,
  errorMessage,
  ReinError,
  type StepBudget,
  type StepResult,
  type Suspension,
  totalTokens,
  zeroUsage,
} from "@rein/contracts";
import type { RunState, StepState, Verdict } from "@rein/contracts/run";
import type { ControllerEffect } from "@rein/contracts/messages";
import { assertAttenuated } from "@rein/signing";
import type { TraceEventBody } from "@rein/trace";
import { contextJobOf } from "./context-job.ts";
import { packetBodyOf } from "./packet-body.ts";
import { evidenceLine } from "./evidence-line.ts";

/** The parts of a transition draft that delegation and context requests use. */
export interface DraftOps {
  state: RunState;
  settings: { now: Date; packetTtlMs: number; maxDepth: number; maxParallel?: number };
  effect(effect: ControllerEffect): void;
  trace(body: TraceEventBody, step?: StepState): void;
  dispatch(step: StepState, options?: { countsAsStep?: boolean }): void;
  recordVerdict(verdict: Verdict, step?: StepState): void;
  retry(step: StepState, verdict: Verdict): void;
  escalate(reasons: readonly string[]): void;
  requestPlan(): void;
  fail(reason: string): void;
}

/**
 * A worker asked for a child step. The controller (never the worker) checks
 * that the child is an attenuation of the parent — its tools, scopes and
 * budget inside what the parent has left, its depth within the limit —
 * builds its packet and dispatches it, while the parent stays suspended and
 * holds no worker slot. A request that would widen anything is refused and
 * the parent resumes with the reason.
 */
export function delegate(
  draft: DraftOps,
  parent: StepState,
  result: StepResult,
  suspension: Extract<Suspension, { kind: "delegate" }>,
): void {
  const { state } = draft;
  const request = suspension.request;
  const childId = `${parent.stepId}.${state.steps.filter((step) => step.parentStepId === parent.stepId).length + 1}`;
  let child: StepState;
  let childBody: ReturnType<typeof bodyOf>;
  try {
    // Everything here is shaped by the model's request: whatever is wrong with it is a refusal, never a throw.
    child = childStepOf(draft, parent, result, request, childId);
    childBody = bodyOf(draft, child);
  } catch (error) {
    const reason = errorMessage(error);
    draft.trace(
      { kind: "delegation.refused", payload: { reason, childTitle: request.title, tools: request.tools.map((grant) => grant.name) } },
      parent,
    );
    parent.resumeInput = {
      kind: "delegation",
      childStepId: childId,
      status: "refused",
      summary: reason,
      observationIds: [],
      refusal: reason,
      callIndex: suspension.callIndex,
    };
    parent.resumes += 1;
    draft.dispatch(parent, { countsAsStep: false });
    return;
  }
  parent.phase = "suspended";
  parent.awaitingChildId = childId;
  parent.awaitingCallIndex = suspension.callIndex;
  state.steps.push(child);
  draft.trace(
    {
      kind: "step.delegated",
      payload: {
        childStepId: childId,
        reason: suspension.reason,
        title: request.title,
        tools: childBody.surface.map((grant) => grant.name),
        scopes: Object.fromEntries(childBody.surface.map((grant) => [grant.name, grant.scope])),
        budget: child.spec.budget,
        depth: child.depth,
      },
    },
    parent,
  );
  draft.dispatch(child);
}

/**
 * The child a request asks for, checked: its depth within the configured
 * maximum, its tools and scopes inside the parent's, and a budget the parent
 * can still give (a limit the parent has spent, such as its last turn, leaves
 * nothing to give). A child of a group is held to its `share` of what the
 * parent has left instead of all of it. Throws a `packet_invalid` ReinError saying which.
 */
export function childStepOf(
  draft: DraftOps,
  parent: StepState,
  result: StepResult,
  request: DelegationRequest,
  childId: string,
  share?: (remaining: StepBudget) => StepBudget,
): StepState {
  const parentBody = bodyOf(draft, parent);
  const left = remainingBudget(parentBody.budget, result);
  const remaining = share ? share(left) : left;
  // A cost limit of $0 is a real limit (free models), not one spent; the other limits must leave something to give.
  const spentLimits = (["maxTurns", "maxToolCalls", "maxTokens", "maxMs"] as const).filter((limit) => remaining[limit] <= 0);
  if (spentLimits.length > 0) {
    throw new ReinError(
      "packet_invalid",
      `the parent has no ${spentLimits.join(", ")} left to give a child step; finish the work in this step instead`,
    );
  }
  const asked = Object.fromEntries(Object.entries(request.budget).filter(([, limit]) => limit !== undefined));
  const childBudget: StepBudget = { ...remaining, ...asked };
  const child: StepState = {
    stepId: childId,
    spec: {
      title: request.title,
      objective: request.objective,
      acceptance_criteria: [],
      tools: request.tools.map((grant) => grant.name),
      evidence_ids: [],
      output_contract: { description: request.outputDescription, format: "text" },
      budget: childBudget,
    },
    attempt: 1,
    phase: "dispatched",
    parentStepId: parent.stepId,
    depth: parent.depth + 1,
    usage: zeroUsage(),
    resumes: 0,
    redispatches: 0,
    attemptFingerprints: [],
    grants: request.tools,
    bounds: { surface: parentBody.surface, budget: remaining },
  };
  assertAttenuated(
    { surface: request.tools, budget: childBudget, depth: child.depth },
    { surface: parentBody.surface, budget: remaining, maxDepth: draft.settings.maxDepth },
  );
  return child;
}

/** A child finished: what it returned is held while the evaluator judges it (see `applyChildVerdict`). */
export function holdChildOutcome(child: StepState, result: StepResult): void {
  child.outcome = {
    status: result.status,
    summary: result.error ? `${result.summary} (${result.error})` : result.summary,
    observationIds: result.observations.map((observation) => observation.id),
  };
}

/**
 * The evaluator's verdict over a child, before anything reaches its parent:
 * a passing child returns what it did; a retry (a loop, a failure left
 * unaddressed) re-runs the child with feedback; a failing child returns to
 * its parent as a failed delegation with the reasons, for the parent to
 * handle; only an `escalate` verdict stops the whole run.
 */
export function applyChildVerdict(draft: DraftOps, child: StepState, verdict: Verdict): void {
  draft.recordVerdict(verdict, child);
  switch (verdict.decision) {
    case "continue":
    case "done":
      child.phase = "completed";
      returnToParent(draft, child, child.outcome?.status ?? "completed", child.outcome?.summary ?? "");
      return;
    case "retry":
      draft.retry(child, verdict);
      return;
    case "escalate": {
      child.phase = "failed";
      const parent = parentOf(draft, child);
      if (parent) parent.phase = "failed";
      draft.escalate(verdict.reasons.map((reason) => `delegated step ${child.stepId}: ${reason}`));
      return;
    }
    case "replan":
    case "fail":
      child.phase = "failed";
      returnToParent(draft, child, "failed", `the evaluator rejected the delegated step's result: ${verdict.reasons.join("; ")}`);
      return;
  }
}

/** A judged child's result goes back to the parent as one observation, and the parent resumes. */
function returnToParent(draft: DraftOps, child: StepState, status: StepResult["status"], summary: string): void {
  const parent = parentOf(draft, child);
  if (!parent || parent.awaitingChildId !== child.stepId) {
    draft.trace({ kind: "step.orphaned", payload: { reason: "no parent waits for this child" } }, child);
    return;
  }
  parent.awaitingChildId = undefined;
  // No call index only on a step suspended before they were recorded (see scaling.md, upgrading): its first call is the likeliest.
  parent.resumeInput = {
    kind: "delegation",
    childStepId: child.stepId,
    status,
    summary,
    observationIds: child.outcome?.observationIds ?? [],
    callIndex: parent.awaitingCallIndex ?? 0,
  };
  parent.awaitingCallIndex = undefined;
  child.outcome = undefined;
  parent.resumes += 1;
  draft.trace({ kind: "step.returned", payload: { childStepId: child.stepId, status, parentStepId: parent.stepId } }, child);
  draft.dispatch(parent, { countsAsStep: false });
}

const parentOf = (draft: DraftOps, child: StepState) => draft.state.steps.find((step) => step.stepId === child.parentStepId);

/** A worker asked its parent for more: the planner decides what, if anything, to pass. */
export function askContext(draft: DraftOps, step: StepState, suspension: Extract<Suspension, { kind: "context" }>): void {
  const question = suspension.question;
  step.phase = "suspended";
  step.awaitingContext = question;
  step.awaitingCallIndex = suspension.callIndex;
  draft.trace({ kind: "step.suspended", payload: { reason: "context", question } }, step);
  draft.effect({
    type: "enqueue_context_request",
    job: contextJobOf(draft.state, step, question, { now: draft.settings.now, ttlMs: draft.settings.packetTtlMs }),
  });
}

/**
 * The planner's answer. Only ids that exist in the run's evidence are
 * passed; anything else it named is dropped, and a refusal is recorded with
 * both the asking step and its parent.
 */
export function answerContext(draft: DraftOps, step: StepState, evidenceIds: readonly string[], refusal: string | undefined): void {
  const { state } = draft;
  const wanted = new Set(evidenceIds);
  const evidence = state.evidence.filter((entry) => wanted.has(entry.id)).map(evidenceLine);
  step.awaitingContext = undefined;
  // No call index only on a step suspended before they were recorded (see scaling.md, upgrading): its first call is the likeliest.
  step.resumeInput = { kind: "context", evidence, refusal, callIndex: step.awaitingCallIndex ?? 0 };
  step.awaitingCallIndex = undefined;
  step.spec = { ...step.spec, evidence_ids: [...new Set([...step.spec.evidence_ids, ...evidence.map((entry) => entry.id)])] };
  step.resumes += 1;
  draft.trace(
    {
      kind: refusal ? "context.refused" : "context.answered",
      payload: {
        evidence: evidence.map((entry) => entry.id),
        refusal: refusal ?? null,
        requestingStepId: step.stepId,
        parentStepId: step.parentStepId,
      },
    },
    step,
  );
  draft.dispatch(step, { countsAsStep: false });
}

export function remainingBudget(budget: StepBudget, result: StepResult): StepBudget {
  return {
    maxTurns: Math.max(0, budget.maxTurns - result.turns),
    maxToolCalls: Math.max(0, budget.maxToolCalls - result.toolCalls.length),
    maxTokens: Math.max(0, budget.maxTokens - totalTokens(result.usage)),
    maxMs: budget.maxMs,
    ...(budget.maxCostUsd !== undefined ? { maxCostUsd: Math.max(0, budget.maxCostUsd - result.usage.costUsd) } : {}),
  };
}

export const bodyOf = (draft: DraftOps, step: StepState) =>
  packetBodyOf(draft.state, step, { now: draft.settings.now, ttlMs: draft.settings.packetTtlMs });
