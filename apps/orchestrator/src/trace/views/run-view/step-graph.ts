import { zeroUsage } from "@rein/contracts";
import type { TypedTraceEvent } from "@rein/trace";
import { callKey } from "./call-records.ts";
import type { AttemptView, GroupView, StepEdge, StepGraph, StepNode } from "./run-view-model.ts";

/**
 * The steps as a graph: each step with its attempts (a retry is a new
 * attempt; a resume after an approval continues the same one), planned steps
 * joined in dispatch order, delegated children joined to their parent. The
 * members of a plan's group each follow the step before the group, and the
 * step after it follows every member.
 */
export class StepGraphFold {
  private readonly steps = new Map<string, StepNode>();
  private readonly edges: StepEdge[] = [];
  private readonly delegations = new Map<string, string>();
  /** The planned steps the next planned step follows: the last one, or every member of the last group. */
  private frontier: string[] = [];
  private readonly groups: GroupView[] = [];
  /** A plan's group whose members are being dispatched, and what they follow. */
  private planGroup: { stepIds: string[]; follow: string[] } | null = null;

  add(event: TypedTraceEvent): void {
    if (event.kind === "group.started") {
      const p = event.payload;
      const join = p.join.rule === "quorum" ? `quorum ${p.join.n ?? 1}` : p.join.rule;
      this.groups.push({ groupId: p.groupId, parentStepId: p.parentStepId, stepIds: p.stepIds, join, outcome: "running", cancelled: [] });
      if (p.parentStepId === null) this.planGroup = { stepIds: p.stepIds, follow: this.frontier };
      return;
    }
    if (event.kind === "group.joined") {
      const group = this.groups.find((candidate) => candidate.groupId === event.payload.groupId);
      if (group) Object.assign(group, { outcome: event.payload.outcome, cancelled: event.payload.cancelled });
      return;
    }
    const stepId = event.stepId;
    if (!stepId) return;
    switch (event.kind) {
      case "step.dispatched":
        this.dispatched(stepId, event.parentStepId, event.payload, event.ts);
        break;
      case "step.delegated":
        this.delegations.set(event.payload.childStepId, event.payload.reason);
        break;
      case "step.finished": {
        const attempt = this.attempt(stepId, event.payload.attempt);
        if (!attempt) break;
        attempt.status = event.payload.status;
        attempt.turns = event.payload.turns;
        attempt.error = event.payload.error;
        attempt.finishedAt = event.ts;
        attempt.durationMs = Date.parse(event.ts) - Date.parse(attempt.dispatchedAt);
        break;
      }
      case "verdict.ready": {
        if (event.payload.subject === "final_answer") break;
        const attempt = this.attempt(stepId, event.payload.attempt);
        if (attempt) attempt.verdict = event.payload.decision;
        break;
      }
      case "tool.called":
        this.attempt(stepId)?.callKeys.push(callKey(stepId, event.payload.callId, event.payload.index));
        break;
    }
  }

  result(): StepGraph {
    return { steps: [...this.steps.values()], edges: this.edges, groups: this.groups };
  }

  private dispatched(
    stepId: string,
    parentStepId: string | null,
    payload: { title: string; attempt: number; depth: number; feedback: string | null },
    at: string,
  ): void {
    let node = this.steps.get(stepId);
    if (!node) {
      node = {
        stepId,
        title: payload.title,
        parentStepId,
        depth: payload.depth,
        delegationReason: this.delegations.get(stepId) ?? null,
        attempts: [],
        usage: zeroUsage(),
      };
      this.steps.set(stepId, node);
      if (parentStepId) this.edges.push({ from: parentStepId, to: stepId, kind: "delegated" });
      else if (this.planGroup?.stepIds.includes(stepId)) {
        for (const from of this.planGroup.follow) this.edges.push({ from, to: stepId, kind: "next" });
        this.frontier = this.planGroup.stepIds;
      } else {
        for (const from of this.frontier) this.edges.push({ from, to: stepId, kind: "next" });
        this.frontier = [stepId];
        this.planGroup = null;
      }
    }
    if (node.attempts.some((attempt) => attempt.attempt === payload.attempt)) return;
    const attempt: AttemptView = {
      attempt: payload.attempt,
      dispatchedAt: at,
      finishedAt: null,
      durationMs: null,
      status: null,
      turns: null,
      error: null,
      feedback: payload.feedback,
      verdict: null,
      callKeys: [],
    };
    node.attempts.push(attempt);
  }

  /** The attempt numbered `number`, or the step's latest. */
  private attempt(stepId: string, number?: number): AttemptView | undefined {
    const attempts = this.steps.get(stepId)?.attempts ?? [];
    return number === undefined ? attempts.at(-1) : attempts.find((attempt) => attempt.attempt === number);
  }
}
