import { errorMessage, type ParallelSteps, StepBudget, type StepResult, type Suspension, zeroUsage } from "@rein/contracts";
import type { RunState, StepGroup, StepState } from "@rein/contracts/run";
import { bodyOf, childStepOf, type DraftOps } from "./delegation.ts";

/** The most steps in flight when neither config nor goal says: `config.packets.maxParallel`'s default. */
export const DEFAULT_MAX_PARALLEL = 4;

/** The most steps of a run in flight at once, and the most children one step may wait for: the goal's limit, never above the config's. */
export function maxParallelOf(state: RunState, settings: { maxParallel?: number }): number {
  const config = settings.maxParallel ?? DEFAULT_MAX_PARALLEL;
  return Math.min(state.goal.maxParallel ?? config, config);
}

/** Budget limits split between the members of a group; turns and wall time are each member's own, as they run side by side. */
const SPLIT_LIMITS = ["maxTokens", "maxToolCalls"] as const;

type DelegateSuspension = Extract<Suspension, { kind: "delegate" }>;

/**
 * A plan named independent steps to run at once. Each is a top-level step
 * with its own packet, dispatched now; their token and cost budgets are
 * slices of what the run has left, so together they never get more. Asking
 * for more steps than `maxParallel`, than the run's step budget has left, or
 * a quorum the group cannot reach is refused: the planner is asked again
 * with the reason, as a replan verdict it reads in its digest.
 */
export function fanOutPlan(draft: DraftOps, planNo: number, parallel: ParallelSteps): void {
  const { state } = draft;
  const count = parallel.steps.length;
  const run = state.goal.budget;
  const tokensLeft = run.maxTokens - state.spent.tokens;
  const costLeft = run.maxCostUsd - state.spent.costUsd;
  const refusal =
    limitRefusal(state, draft.settings, count) ??
    joinRefusal(parallel.join, count) ??
    (run.maxSteps - state.spent.steps < count
      ? `the run has ${run.maxSteps - state.spent.steps} of its ${run.maxSteps} steps left, fewer than the ${count} steps asked for`
      : undefined) ??
    (Math.floor(tokensLeft / count) < 1 ? `the run has ${tokensLeft} tokens left, too few to split between ${count} steps` : undefined);
  if (refusal) {
    draft.trace({ kind: "group.refused", payload: { parentStepId: null, asked: count, reason: refusal } });
    // Refusals spend steps, so a planner that keeps asking for too much runs out instead of looping.
    state.spent.steps += 1;
    state.verdicts.push({ stepId: `plan-${planNo}`, attempt: 1, decision: "replan", reasons: [`parallel group refused: ${refusal}`] });
    draft.requestPlan();
    return;
  }
  const tokenSlice = Math.floor(tokensLeft / count);
  const costSlice = Math.floor((Math.max(0, costLeft) / count) * 1e6) / 1e6;
  const defaults = StepBudget.parse({});
  const group = openGroup(state, null, parallel.join);
  const steps: StepState[] = parallel.steps.map((spec, index) => ({
    stepId: `s${state.steps.length + 1 + index}`,
    spec: {
      ...spec,
      budget: {
        ...spec.budget,
        maxTokens: Math.min(spec.budget.maxTokens ?? defaults.maxTokens, tokenSlice),
        maxCostUsd: Math.min(spec.budget.maxCostUsd ?? costSlice, costSlice),
      },
    },
    attempt: 1,
    phase: "dispatched",
    parentStepId: null,
    depth: 0,
    usage: zeroUsage(),
    resumes: 0,
    redispatches: 0,
    attemptFingerprints: [],
    groupId: group.groupId,
  }));
  group.stepIds = steps.map((step) => step.stepId);
  state.steps.push(...steps);
  draft.trace({
    kind: "group.started",
    payload: {
      groupId: group.groupId,
      parentStepId: null,
      stepIds: group.stepIds,
      join: group.join,
      slices: steps.map((step) => ({ maxTokens: step.spec.budget.maxTokens ?? 0, maxCostUsd: step.spec.budget.maxCostUsd ?? 0 })),
    },
  });
  for (const step of steps) {
    // A dispatch that finds the run over budget ends it; the rest of the group is then cancelled with it.
    if (state.status === "failed") break;
    draft.dispatch(step);
  }
}

/**
 * A worker asked for several children in one turn. Each is checked for
 * attenuation against the parent as a single child is, but held to its
 * share of what the parent has left (tokens and tool calls divided between
 * them), so the shares add up to at most the parent's. If any child is
 * refused, or there are more than `maxParallel`, none is created and the
 * parent resumes with the reason as the answer to every call.
 */
export function fanOutDelegation(draft: DraftOps, parent: StepState, result: StepResult, suspension: DelegateSuspension): void {
  const { state } = draft;
  const asks = [
    { reason: suspension.reason, request: suspension.request, callIndex: suspension.callIndex, join: suspension.join },
    ...(suspension.more ?? []),
  ];
  const first = state.steps.filter((step) => step.parentStepId === parent.stepId).length + 1;
  const childIds = asks.map((_, index) => `${parent.stepId}.${first + index}`);
  let children: StepState[];
  let join: StepGroup["join"];
  try {
    join = askedJoin(asks);
    const refusal = limitRefusal(state, draft.settings, asks.length, parent) ?? joinRefusal(join, asks.length);
    if (refusal) throw new Error(refusal);
    const share = (remaining: StepBudget): StepBudget => shareOf(remaining, asks.length);
    // Everything here is shaped by the model's requests: whatever is wrong with one is a refusal, never a throw.
    children = asks.map((ask, index) => childStepOf(draft, parent, result, ask.request, childIds[index] as string, share));
  } catch (error) {
    const reason = errorMessage(error);
    draft.trace({ kind: "group.refused", payload: { parentStepId: parent.stepId, asked: asks.length, reason } }, parent);
    parent.resumeInput = {
      kind: "delegations",
      children: asks.map((ask, index) => ({
        kind: "delegation" as const,
        childStepId: childIds[index] as string,
        status: "refused",
        summary: reason,
        observationIds: [],
        refusal: reason,
        callIndex: ask.callIndex,
      })),
    };
    parent.resumes += 1;
    draft.dispatch(parent, { countsAsStep: false });
    return;
  }
  const group = openGroup(state, parent.stepId, join);
  group.stepIds = childIds;
  group.callIndexes = asks.map((ask) => ask.callIndex);
  parent.phase = "suspended";
  for (const child of children) child.groupId = group.groupId;
  state.steps.push(...children);
  draft.trace(
    {
      kind: "group.started",
      payload: {
        groupId: group.groupId,
        parentStepId: parent.stepId,
        stepIds: childIds,
        join: group.join,
        slices: children.map((child) => ({
          maxTokens: child.spec.budget.maxTokens ?? 0,
          maxToolCalls: child.spec.budget.maxToolCalls ?? 0,
        })),
      },
    },
    parent,
  );
  for (const [index, child] of children.entries()) {
    const body = bodyOf(draft, child);
    draft.trace(
      {
        kind: "step.delegated",
        payload: {
          childStepId: child.stepId,
          reason: asks[index]?.reason ?? "",
          title: child.spec.title,
          tools: body.surface.map((grant) => grant.name),
          scopes: Object.fromEntries(body.surface.map((grant) => [grant.name, grant.scope])),
          budget: child.spec.budget,
          depth: child.depth,
        },
      },
      parent,
    );
  }
  for (const child of children) {
    if (state.status === "failed") break;
    draft.dispatch(child);
  }
}

/** One member's share of what its parent has left: the additive limits divided, rounded down. */
function shareOf(remaining: StepBudget, count: number): StepBudget {
  const share: StepBudget = { ...remaining };
  for (const limit of SPLIT_LIMITS) share[limit] = Math.floor(remaining[limit] / count);
  if (remaining.maxCostUsd !== undefined) share.maxCostUsd = Math.floor((remaining.maxCostUsd / count) * 1e6) / 1e6;
  return share;
}

/** More steps than `maxParallel` would then be in flight in the run (the asking parent, suspended, no longer counts). */
function limitRefusal(state: RunState, settings: { maxParallel?: number }, count: number, asking?: StepState): string | undefined {
  const limit = maxParallelOf(state, settings);
  const running = state.steps.filter((step) => step !== asking && IN_FLIGHT.includes(step.phase)).length;
  if (count > limit) {
    return `${count} steps at once is more than maxParallel ${limit} (goal maxParallel, at most config packets.maxParallel); ask for at most ${limit}`;
  }
  if (running + count > limit) {
    return `${count} more steps would make ${running + count} in flight in this run, more than maxParallel ${limit}; ask for at most ${Math.max(0, limit - running)}`;
  }
  return undefined;
}

const IN_FLIGHT: readonly StepState["phase"][] = ["dispatched", "executing", "evaluating"];

/** The join the turn's calls named: the one rule any of them names, `all` when none does; calls naming different rules are refused. */
function askedJoin(asks: readonly { join?: StepGroup["join"] }[]): StepGroup["join"] {
  const named = [...new Map(asks.flatMap((ask) => (ask.join ? [[JSON.stringify(ask.join), ask.join] as const] : []))).values()];
  if (named.length > 1) {
    const rules = named.map((join) => (join.rule === "quorum" ? `quorum ${join.n ?? "?"}` : join.rule)).join(", ");
    throw new Error(`the delegate calls of one turn name different joins (${rules}); name one join, on any one of the calls`);
  }
  return named[0] ?? { rule: "all" };
}

function joinRefusal(join: ParallelSteps["join"], count: number): string | undefined {
  if (join.rule !== "quorum") return undefined;
  if (join.n === undefined) return "a quorum join must say n, how many steps must pass";
  if (join.n > count) return `a quorum of ${join.n} cannot be reached by ${count} steps`;
  return undefined;
}

function openGroup(state: RunState, parentStepId: string | null, join: StepGroup["join"]): StepGroup {
  const group: StepGroup = { groupId: `g${(state.groups?.length ?? 0) + 1}`, parentStepId, stepIds: ["-"], join, phase: "running" };
  state.groups = [...(state.groups ?? []), group];
  return group;
}
