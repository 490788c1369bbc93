import type { RunState, RunStatus, StepGroup, StepState, Verdict } from "@rein/contracts/run";
import type { DraftOps } from "./delegation.ts";
import { rejectOutputEvidence } from "./step-output-evidence.ts";

const LIVE_PHASES: readonly StepState["phase"][] = ["dispatched", "executing", "evaluating", "suspended"];
const isLive = (step: StepState): boolean => LIVE_PHASES.includes(step.phase);

/** The running group a step belongs to, if any. */
export function runningGroupOf(state: RunState, step: StepState): StepGroup | undefined {
  if (step.groupId === undefined) return undefined;
  return state.groups?.find((group) => group.groupId === step.groupId && group.phase === "running");
}

export const hasRunningGroup = (state: RunState): boolean => state.groups?.some((group) => group.phase === "running") ?? false;

/**
 * The evaluator's verdict over one member of a running group. A passing
 * member counts toward the join, a retry runs it again, a failing one
 * counts against it with its reasons, and an `escalate` stops the run for a
 * person as it would for a single step. Once the rule is decided the members
 * still running are cancelled and the group's asker goes on: the planner
 * (a plan's group) by the verdict table, or the parent step, resumed with
 * one answer per child in the order it asked.
 */
export function applyMemberVerdict(draft: DraftOps, step: StepState, verdict: Verdict, group: StepGroup): void {
  draft.recordVerdict(verdict, step);
  switch (verdict.decision) {
    case "continue":
    case "done":
      step.phase = "completed";
      break;
    case "retry":
      draft.retry(step, verdict);
      return;
    case "escalate":
      step.phase = "failed";
      closeGroup(draft, group, "failed");
      if (group.parentStepId !== null) markFailed(draft.state, group.parentStepId);
      draft.escalate(verdict.reasons.map((reason) => `step ${step.stepId} of group ${group.groupId}: ${reason}`));
      return;
    case "replan":
    case "fail":
      step.phase = "failed";
      rejectOutputEvidence(draft.state, step);
      if (step.outcome)
        step.outcome = { ...step.outcome, status: "failed", summary: `the evaluator rejected it: ${verdict.reasons.join("; ")}` };
      break;
  }
  const outcome = joinOutcome(draft.state, group);
  if (!outcome) return;
  closeGroup(draft, group, outcome);
  if (group.parentStepId !== null) {
    resumeParent(draft, group);
    return;
  }
  // A plan's group that failed goes on by the verdict that decided it: replan asks the planner again, fail ends the run.
  if (outcome === "failed" && verdict.decision === "fail")
    draft.fail(`step ${step.stepId} of group ${group.groupId}: ${verdict.reasons.join("; ")}`);
  else draft.requestPlan();
}

/**
 * A run resumed after an escalation plans afresh: groups still running when
 * it stopped are over (their workers stopped with the run), so none of their
 * members can come back and count.
 */
export function abandonRunningGroups(draft: DraftOps): void {
  for (const group of draft.state.groups ?? []) {
    if (group.phase !== "running") continue;
    closeGroup(draft, group, "failed");
    if (group.parentStepId !== null) markFailed(draft.state, group.parentStepId);
  }
}

/** Whether the join rule is decided: enough members passed, or too many failed for it ever to be met. */
function joinOutcome(state: RunState, group: StepGroup): "joined" | "failed" | undefined {
  const members = membersOf(state, group);
  const needed = group.join.rule === "all" ? members.length : group.join.rule === "any" ? 1 : Math.min(group.join.n ?? 1, members.length);
  const passed = members.filter((member) => member.phase === "completed").length;
  const failed = members.filter((member) => member.phase === "failed" || member.phase === "cancelled").length;
  if (passed >= needed) return "joined";
  if (failed > members.length - needed) return "failed";
  return undefined;
}

/**
 * Ends a group: members still in flight (and whatever they delegated) are
 * cancelled, their workers told to stop; the join's inputs are traced in the
 * order asked, and the members' evidence and verdicts are put in that order
 * too, so what the planner or the parent reads next does not depend on the
 * order the members finished in.
 */
function closeGroup(draft: DraftOps, group: StepGroup, outcome: "joined" | "failed"): void {
  const { state } = draft;
  group.phase = outcome;
  const cancelled = new Set<string>();
  for (const step of state.steps) {
    const inGroup = group.stepIds.includes(step.stepId) || (step.parentStepId !== null && cancelled.has(step.parentStepId));
    if (!inGroup || !isLive(step)) continue;
    step.phase = "cancelled";
    cancelled.add(step.stepId);
    // Nothing it waited for may bring it back: an approval, an answer to its question.
    if (step.awaitingApprovalId) state.pendingApprovals = state.pendingApprovals.filter((id) => id !== step.awaitingApprovalId);
    step.awaitingApprovalId = undefined;
    step.awaitingContext = undefined;
  }
  for (const other of state.groups ?? []) {
    if (other.phase === "running" && other.parentStepId !== null && cancelled.has(other.parentStepId)) other.phase = "failed";
  }
  inAskedOrder(state, group);
  const members = membersOf(state, group);
  draft.trace({
    kind: "group.joined",
    payload: {
      groupId: group.groupId,
      outcome,
      inputs: members.map((member) => ({ stepId: member.stepId, phase: member.phase, decision: member.decision ?? null })),
      cancelled: [...cancelled],
    },
  });
  if (cancelled.size > 0) {
    draft.effect({ type: "cancel_steps", stepIds: [...cancelled], reason: `group ${group.groupId} ${outcome} without them` });
  }
}

/** The parent of a worker's group resumes with one answer per child, in the order it asked. */
function resumeParent(draft: DraftOps, group: StepGroup): void {
  const parent = draft.state.steps.find((step) => step.stepId === group.parentStepId);
  if (parent?.phase !== "suspended") {
    draft.trace({ kind: "step.orphaned", payload: { reason: `no parent waits for group ${group.groupId}` } });
    return;
  }
  const members = membersOf(draft.state, group);
  parent.resumeInput = {
    kind: "delegations",
    children: members.map((child, index) => ({
      kind: "delegation" as const,
      childStepId: child.stepId,
      ...answerOf(child),
      callIndex: group.callIndexes?.[index] ?? 0,
    })),
  };
  for (const child of members) {
    draft.trace(
      { kind: "step.returned", payload: { childStepId: child.stepId, status: answerOf(child).status, parentStepId: parent.stepId } },
      child,
    );
    child.outcome = undefined;
  }
  parent.resumes += 1;
  draft.dispatch(parent, { countsAsStep: false });
}

function answerOf(child: StepState): { status: string; summary: string; observationIds: string[] } {
  if (child.phase === "cancelled") return { status: "cancelled", summary: "cancelled: its group joined without it", observationIds: [] };
  const outcome = child.outcome ?? { status: child.phase === "completed" ? "completed" : "failed", summary: "", observationIds: [] };
  return {
    status: child.phase === "completed" ? outcome.status : "failed",
    summary: outcome.summary,
    observationIds: outcome.observationIds,
  };
}

/**
 * The run's status while a group runs, from the steps in flight: executing
 * while any step runs (or waits to), evaluating when all that is left waits
 * for verdicts, waiting for a person when only approvals are left.
 */
export function settleStatus(draft: DraftOps & { setStatus(status: RunStatus): void }): void {
  const live = draft.state.steps.filter(isLive);
  const status: RunStatus | undefined = live.some((step) => step.phase === "executing")
    ? "executing"
    : live.some((step) => step.phase === "dispatched")
      ? "dispatching"
      : live.some((step) => step.phase === "evaluating")
        ? "evaluating"
        : live.some((step) => step.awaitingApprovalId !== undefined)
          ? "waiting_approval"
          : undefined;
  if (status) draft.setStatus(status);
}

const membersOf = (state: RunState, group: StepGroup): StepState[] =>
  group.stepIds.flatMap((stepId) => state.steps.filter((step) => step.stepId === stepId));

function markFailed(state: RunState, stepId: string): void {
  const step = state.steps.find((candidate) => candidate.stepId === stepId);
  if (step) step.phase = "failed";
}

/** Stable-sorts the members' evidence and verdicts into the order the members were asked for. */
function inAskedOrder(state: RunState, group: StepGroup): void {
  const rank = new Map(group.stepIds.map((stepId, index) => [stepId, index]));
  const reorder = <Entry extends { stepId: string }>(entries: Entry[]): Entry[] => {
    const positions = entries.flatMap((entry, index) => (rank.has(entry.stepId) ? [index] : []));
    const sorted = positions
      .map((index) => entries[index] as Entry)
      .sort((left, right) => (rank.get(left.stepId) ?? 0) - (rank.get(right.stepId) ?? 0));
    const result = [...entries];
    for (const [slot, index] of positions.entries()) result[index] = sorted[slot] as Entry;
    return result;
  };
  state.evidence = reorder(state.evidence);
  state.verdicts = reorder(state.verdicts);
}
