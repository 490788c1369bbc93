import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Goal, hashOf, type StepResult, type ToolGrant, type Usage, zeroUsage } from "@rein/contracts";
import { isTerminal, RunState } from "@rein/contracts/run";
import { ControlEvent, ControllerEffect } from "@rein/contracts/messages";
import { transition, type TransitionSettings } from "../src/transition/transition.ts";
import { newRunState } from "../src/intake/submit-goal.ts";

/*
 * Random runs against the pure transition. A run is a sequence of operations
 * on a simulated world: deliver an answer to any outstanding effect, in any
 * order (a plan for a plan job, a start, result or error for a step job, a
 * verdict, an approval decision, a context answer, the deadline), lose an
 * outstanding job (its queue forgot it, or its workers were lost), deliver an
 * earlier event again, or deliver a garbage event that passes the
 * ControlEvent schema (unknown steps, old attempts, huge usage, hostile
 * delegation requests). After every event the invariants must hold; at the
 * end the run is cancelled if it has not ended, and then every step must be
 * in a terminal phase.
 */

const NUM_RUNS = 1_000;
const START = new Date("2026-11-30T00:00:00.000Z");
const STEP_IDS = ["s1", "s2", "s3", "s1.1", "s1.1.1", "s2.1", "nope"];
const TOOLS = ["read_file", "run_command", "not_granted"];
const TERMINAL_PHASES = new Set(["completed", "failed", "cancelled"]);
const WORK_EFFECTS = new Set<ControllerEffect["type"]>(["enqueue_plan", "dispatch_step", "enqueue_evaluate", "enqueue_context_request"]);

/** Something the world owes the controller, because an effect asked for it. */
type Obligation =
  | { kind: "plan"; planNo: number }
  | { kind: "step"; jobId: string; body: Extract<ControllerEffect, { type: "dispatch_step" }>["body"] }
  | { kind: "evaluate"; stepId: string; attempt: number }
  | { kind: "approval"; approvalId: string }
  | { kind: "context"; stepId: string; attempt: number }
  | { kind: "deadline" };

type Operation =
  | { op: "answer"; pick: number; choice: number[]; tickMs: number }
  | { op: "again"; pick: number }
  | { op: "garbage"; event: ControlEvent }
  | { op: "lose"; pick: number; workerLost: boolean; withResult: boolean }
  | { op: "cancel" }
  | { op: "resume" };

const nat = (max: number) => fc.integer({ min: 0, max });
const usageArb: fc.Arbitrary<Usage> = fc.record({
  inputTokens: fc.oneof({ weight: 9, arbitrary: nat(2_000) }, { weight: 1, arbitrary: nat(10_000_000) }),
  outputTokens: nat(2_000),
  cacheReadTokens: nat(100),
  cacheWriteTokens: nat(100),
  costUsd: fc.oneof({ weight: 9, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.double({ min: 0, max: 2, noNaN: true }) }),
});
const stepIdArb = fc.constantFrom(...STEP_IDS);
const attemptArb = fc.integer({ min: 1, max: 4 });
const delegateArb = fc.record({
  kind: fc.constant("delegate" as const),
  reason: fc.string(),
  request: fc.record({
    title: fc.constantFrom("Read it", "Check the logs", "x".repeat(200)),
    objective: fc.constantFrom("Read src/add.js and report", "Do anything at all you like"),
    tools: fc.array(
      fc.record({
        name: fc.constantFrom(...TOOLS),
        scope: fc.constantFrom<ToolGrant["scope"]>({}, { paths: ["src/**"] }, { commands: ["rm"] }),
      }),
      { minLength: 1, maxLength: 3 },
    ),
    budget: fc.record(
      {
        maxTurns: fc.integer({ min: 1, max: 50 }),
        maxToolCalls: fc.integer({ min: 1, max: 90 }),
        maxTokens: fc.integer({ min: 1, max: 10_000_000 }),
      },
      { requiredKeys: [] },
    ),
    outputDescription: fc.constant("a summary"),
  }),
  callIndex: fc.nat({ max: 3 }),
});
const suspensionArb = fc.oneof(
  fc.record({ kind: fc.constant("approval" as const), approvalId: fc.constantFrom("apr_1", "apr_2"), tool: fc.constant("run_command") }),
  delegateArb,
  fc.record({ kind: fc.constant("context" as const), question: fc.string(), callIndex: fc.nat({ max: 3 }) }),
);
const resultArb = (stepId: string, attempt: number): fc.Arbitrary<StepResult> =>
  fc
    .record({
      status: fc.constantFrom("completed", "failed", "needs_approval", "delegated", "needs_context", "budget_exhausted"),
      suspension: fc.option(suspensionArb, { nil: undefined }),
      usage: usageArb,
      turns: nat(40),
      output: fc.oneof(fc.string(), fc.constant({ answer: "fixed", claims: [{ text: "it works", evidence: ["obs_1"] }], gaps: [] })),
    })
    .map((fields) => ({
      schemaVersion: 1 as const,
      runId: "run_p",
      stepId,
      attempt,
      summary: "did things",
      claims: [],
      observations: [],
      toolCalls: [],
      fingerprints: [hashOf(fields.status)],
      ...fields,
    }));

const verdictArb = (stepId: string, attempt: number) =>
  fc.constantFrom("continue", "retry", "replan", "escalate", "done", "fail").map((decision) => ({
    schemaVersion: 1 as const,
    runId: "run_p",
    stepId,
    attempt,
    decision,
    reasons: [`because ${decision}`],
    checks: [],
  }));

/** Events that pass the schema but may name anything: steps that do not exist, old attempts, plans out of turn. */
const garbageArb: fc.Arbitrary<ControlEvent> = fc
  .oneof(
    fc.record({ type: fc.constant("goal.submitted") }),
    fc.record({
      type: fc.constant("plan.ready"),
      planNo: fc.integer({ min: 1, max: 4 }),
      plan: fc.oneof(
        fc.constant({ done: true, answer: { answer: "done", claims: [], gaps: [] } }),
        fc.record({
          current_step: fc.record({
            title: fc.constant("Do a thing"),
            objective: fc.constant("Do the thing the goal asks"),
            tools: fc.array(fc.constantFrom(...TOOLS)),
          }),
        }),
      ),
      usage: usageArb,
    }),
    fc.record({ type: fc.constant("plan.failed"), planNo: fc.integer({ min: 1, max: 4 }), reason: fc.string(), usage: usageArb }),
    fc.record({ type: fc.constant("step.started"), stepId: stepIdArb, attempt: attemptArb }),
    fc.tuple(stepIdArb, attemptArb).chain(([stepId, attempt]) =>
      fc.record({
        type: fc.constant("step.finished"),
        stepId: fc.constant(stepId),
        attempt: fc.constant(attempt),
        result: resultArb(stepId, attempt),
      }),
    ),
    fc.record({ type: fc.constant("step.errored"), stepId: stepIdArb, attempt: attemptArb, reason: fc.string() }),
    fc.tuple(stepIdArb, attemptArb).chain(([stepId, attempt]) =>
      fc.record({
        type: fc.constant("verdict.ready"),
        stepId: fc.constant(stepId),
        attempt: fc.constant(attempt),
        verdict: verdictArb(stepId, attempt),
        usage: usageArb,
      }),
    ),
    fc.record({
      type: fc.constant("approval.decided"),
      approvalId: fc.constantFrom("apr_1", "apr_2", "apr_x"),
      decision: fc.constantFrom("approved", "denied", "expired"),
    }),
    fc.record({
      type: fc.constant("context.answered"),
      stepId: stepIdArb,
      attempt: attemptArb,
      evidenceIds: fc.array(fc.string(), { maxLength: 2 }),
      usage: usageArb,
    }),
    fc.record({ type: fc.constant("run.resume"), instruction: fc.string({ minLength: 1 }) }),
    fc.record({ type: fc.constant("deadline") }),
    fc.record({ type: fc.constant("event.failed"), failedEventId: fc.string(), failedEventType: fc.string(), reason: fc.string() }),
    fc.record({
      type: fc.constant("jobs.lost"),
      jobs: fc.array(
        fc.constantFrom(
          "plan 0",
          "plan 1",
          "plan 2",
          "step s1 1 step-run_p-s1-1",
          "evaluate s1 1",
          "context s1 1",
          "final 1",
          "deadline",
          "nonsense",
        ),
        { minLength: 1, maxLength: 3 },
      ),
      cause: fc.constantFrom("vanished", "worker_lost"),
      reason: fc.string(),
      seenVersion: fc.option(nat(20), { nil: undefined }),
    }),
  )
  .chain((fields) => nat(1_000_000).map((id) => ControlEvent.parse({ ...fields, eventId: `garbage-${id}`, runId: "run_p" })));

const operationArb: fc.Arbitrary<Operation> = fc.oneof(
  {
    weight: 30,
    arbitrary: fc.record({
      op: fc.constant("answer" as const),
      pick: nat(20),
      choice: fc.array(nat(1_000), { minLength: 4, maxLength: 4 }),
      tickMs: nat(60_000),
    }),
  },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("again" as const), pick: nat(200) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("garbage" as const), event: garbageArb }) },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant("lose" as const), pick: nat(20), workerLost: fc.boolean(), withResult: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.constant({ op: "resume" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "cancel" as const }) },
);

const goalArb = fc
  .record({
    maxSteps: fc.integer({ min: 1, max: 8 }),
    maxTokens: fc.integer({ min: 2_000, max: 200_000 }),
    maxCostUsd: fc.double({ min: 0.05, max: 5, noNaN: true }),
    maxWallMs: fc.integer({ min: 60_000, max: 3_600_000 }),
  })
  .chain((budget) => fc.record({ budget: fc.constant(budget), maxParallel: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }) }))
  .map(({ budget, maxParallel }) =>
    Goal.parse({
      text: "Fix the bug",
      tools: [{ name: "read_file" }, { name: "run_command", scope: { commands: ["node"] } }],
      budget,
      ...(maxParallel === undefined ? {} : { maxParallel }),
    }),
  );

/** The world's answer to an obligation, shaped by the operation's choices. */
function answer(obligation: Obligation, choice: number[], eventId: string): { event: ControlEvent; keep: boolean } {
  const [a = 0, b = 0, c = 0, d = 0] = choice;
  const usage = { ...zeroUsage(), inputTokens: (b * 37) % 1_500, outputTokens: c % 300, costUsd: (d % 100) / 2_000 };
  const base = { eventId, runId: "run_p" };
  switch (obligation.kind) {
    case "plan": {
      if (a % 13 === 0)
        return {
          event: ControlEvent.parse({ ...base, type: "plan.failed", planNo: obligation.planNo, reason: "invalid output", usage }),
          keep: false,
        };
      const done = a % 13 === 1;
      const fix = (index: number) => ({
        title: `Fix part ${index}`,
        objective: "Change src/add.js so add returns a sum",
        tools: [TOOLS[(b + index) % 3], TOOLS[c % 2]],
        budget: (c + index) % 3 === 0 ? { maxTurns: 1 + (d % 3), maxTokens: 1 + ((b * 997) % 300_000) } : {},
      });
      const joins = [{ rule: "all" }, { rule: "any" }, { rule: "quorum", n: 1 + (d % 3) }, { rule: "quorum" }];
      const plan = done
        ? { done: true, answer: { answer: "fixed", claims: [], gaps: [] } }
        : a % 4 === 2
          ? { parallel: { steps: Array.from({ length: 2 + (b % 4) }, (_, index) => fix(index)), join: joins[c % joins.length] } }
          : {
              current_step: {
                title: "Fix add()",
                objective: "Change src/add.js so add returns a sum",
                tools: [TOOLS[b % 3], TOOLS[c % 2]],
                budget: c % 3 === 0 ? { maxTurns: 1 + (d % 3) } : {},
              },
              next_steps: ["Verify"],
            };
      return { event: ControlEvent.parse({ ...base, type: "plan.ready", planNo: obligation.planNo, plan, usage }), keep: false };
    }
    case "step": {
      const { stepId, attempt, budget } = obligation.body;
      const ids = { stepId, attempt };
      if (a % 6 === 0) return { event: ControlEvent.parse({ ...base, type: "step.started", ...ids }), keep: true };
      if (a % 29 === 1)
        return { event: ControlEvent.parse({ ...base, type: "step.errored", ...ids, reason: "packet refused" }), keep: false };
      const statuses = [
        "completed",
        "completed",
        "completed",
        "failed",
        "needs_approval",
        "delegated",
        "delegated",
        "needs_context",
        "budget_exhausted",
      ] as const;
      const status = statuses[b % statuses.length] ?? "completed";
      const suspension =
        status === "needs_approval"
          ? { kind: "approval", approvalId: `apr_${stepId}_${attempt}_${d}`, tool: "run_command" }
          : status === "delegated"
            ? {
                kind: "delegate",
                reason: "narrower",
                request: {
                  title: "Read it",
                  objective: "Read src/add.js and report",
                  tools: [{ name: TOOLS[c % 3], scope: {} }],
                  budget: d % 2 === 0 ? {} : { maxTurns: 1 + (d % 5) },
                },
                callIndex: d % 3,
                // Sometimes several children in one turn.
                ...(a % 3 === 0
                  ? {
                      more: Array.from({ length: 1 + (c % 4) }, (_, index) => ({
                        reason: "in parallel",
                        request: {
                          title: `Read part ${index}`,
                          objective: "Read src/add.js and report",
                          tools: [{ name: TOOLS[(c + index) % 3], scope: {} }],
                          budget: index % 2 === 0 ? {} : { maxTokens: 1 + ((b * 7919) % 400_000) },
                        },
                        callIndex: (d % 3) + index + 1,
                      })),
                    }
                  : {}),
              }
            : status === "needs_context"
              ? { kind: "context", question: "which file?", callIndex: d % 3 }
              : undefined;
      const result = {
        schemaVersion: 1,
        runId: "run_p",
        ...ids,
        status,
        output: "done",
        summary: "did it",
        observations: [],
        toolCalls: [],
        fingerprints: [],
        usage,
        // Sometimes the step used its last turn, so a delegation has nothing left to give.
        turns: c % 4 === 0 ? budget.maxTurns : c % budget.maxTurns,
        suspension,
      };
      return { event: ControlEvent.parse({ ...base, type: "step.finished", ...ids, result }), keep: false };
    }
    case "evaluate": {
      const decisions = ["continue", "continue", "retry", "replan", "escalate", "done", "fail"] as const;
      const decision = decisions[a % decisions.length] ?? "continue";
      const verdict = {
        schemaVersion: 1,
        runId: "run_p",
        stepId: obligation.stepId,
        attempt: obligation.attempt,
        decision,
        reasons: [decision],
        checks: [],
      };
      return {
        event: ControlEvent.parse({
          ...base,
          type: "verdict.ready",
          stepId: obligation.stepId,
          attempt: obligation.attempt,
          verdict,
          usage,
        }),
        keep: false,
      };
    }
    case "approval":
      return {
        event: ControlEvent.parse({
          ...base,
          type: "approval.decided",
          approvalId: obligation.approvalId,
          decision: ["approved", "denied", "expired"][a % 3],
        }),
        keep: false,
      };
    case "context":
      return {
        event: ControlEvent.parse({
          ...base,
          type: "context.answered",
          stepId: obligation.stepId,
          attempt: obligation.attempt,
          evidenceIds: [],
          refusal: a % 2 === 0 ? "nothing to pass" : undefined,
          usage,
        }),
        keep: false,
      };
    case "deadline":
      return { event: ControlEvent.parse({ ...base, type: "deadline" }), keep: a % 2 === 0 };
  }
}

/** The world lost the job behind an obligation: the report the sweep or the job's role would send. */
function lostEvent(obligation: Obligation, operation: Extract<Operation, { op: "lose" }>, eventId: string): ControlEvent | undefined {
  const key = lostKeyOf(obligation);
  if (!key) return undefined;
  const stepResults =
    obligation.kind === "evaluate" && operation.withResult
      ? [
          {
            schemaVersion: 1,
            runId: "run_p",
            stepId: obligation.stepId,
            attempt: obligation.attempt,
            status: "completed",
            output: "done",
            summary: "did it",
            observations: [],
            toolCalls: [],
            fingerprints: [],
            usage: zeroUsage(),
            turns: 1,
          },
        ]
      : [];
  return ControlEvent.parse({
    type: "jobs.lost",
    eventId,
    runId: "run_p",
    jobs: [key],
    cause: operation.workerLost ? "worker_lost" : "vanished",
    reason: "gone",
    stepResults,
  });
}

/** The obligation's job as a run's `awaiting` field names it. */
function lostKeyOf(obligation: Obligation): string | undefined {
  switch (obligation.kind) {
    case "plan":
      return `plan ${obligation.planNo}`;
    case "step":
      return `step ${obligation.body.stepId} ${obligation.body.attempt} ${obligation.jobId}`;
    case "evaluate":
      return obligation.stepId === "final" ? `final ${obligation.attempt}` : `evaluate ${obligation.stepId} ${obligation.attempt}`;
    case "context":
      return `context ${obligation.stepId} ${obligation.attempt}`;
    case "deadline":
      return "deadline";
    case "approval":
      return undefined;
  }
}

function obligationsOf(effects: readonly ControllerEffect[]): Obligation[] {
  return effects.flatMap((effect): Obligation[] => {
    switch (effect.type) {
      case "enqueue_plan":
        return [{ kind: "plan", planNo: effect.job.planNo }];
      case "dispatch_step":
        return [{ kind: "step", jobId: effect.jobId, body: effect.body }];
      case "enqueue_evaluate":
        return [{ kind: "evaluate", stepId: effect.job.stepId, attempt: effect.job.attempt }];
      case "schedule_approval_expiry":
        return [{ kind: "approval", approvalId: effect.approvalId }];
      case "enqueue_context_request":
        return [{ kind: "context", stepId: effect.job.stepId, attempt: effect.job.attempt }];
      case "schedule_deadline":
        return [{ kind: "deadline" }];
      default:
        return [];
    }
  });
}

/** Runs one generated sequence, checking the invariants after every event; returns what it saw for the caller's checks. */
function play(goal: Goal, operations: readonly Operation[]): void {
  let state: RunState = newRunState(goal, "run_p", START.toISOString());
  let now = START.getTime();
  let counter = 0;
  const nextId = (prefix: string) => {
    counter += 1;
    return `${prefix}-${counter}`;
  };
  const pending: Obligation[] = [];
  const delivered: ControlEvent[] = [];
  const dispatched = new Set<string>();
  const settings = (): TransitionSettings => ({
    now: new Date(now),
    packetTtlMs: 600_000,
    approvalTtlMs: 3_600_000,
    maxDepth: 2,
    lostStepRedispatches: 2,
    resendsPerJob: 2,
    maxParallel: 4,
  });

  const deliver = (event: ControlEvent) => {
    const before = state;
    let next: ReturnType<typeof transition>;
    try {
      next = transition(before, event, settings());
    } catch (error) {
      throw new Error(`transition threw on ${event.type} in status ${before.status}: ${String(error)}`);
    }
    delivered.push(event);
    checkStep(goal, before, next, event, dispatched);
    state = next.state;
    if (next.applied) pending.push(...obligationsOf(next.effects));
  };

  deliver(ControlEvent.parse({ type: "goal.submitted", eventId: "submitted", runId: "run_p" }));
  for (const operation of operations) {
    switch (operation.op) {
      case "answer": {
        if (pending.length === 0) break;
        const index = operation.pick % pending.length;
        const obligation = pending[index] as Obligation;
        now += operation.tickMs;
        const { event, keep } = answer(obligation, operation.choice, nextId("ev"));
        if (!keep) pending.splice(index, 1);
        deliver(event);
        break;
      }
      case "again":
        if (delivered.length > 0) deliver(delivered[operation.pick % delivered.length] as ControlEvent);
        break;
      case "garbage":
        deliver(operation.event);
        break;
      case "lose": {
        const obligation = pending[operation.pick % Math.max(1, pending.length)];
        const lost = obligation && lostEvent(obligation, operation, nextId("lost"));
        if (lost) deliver(lost);
        break;
      }
      case "resume":
        deliver(ControlEvent.parse({ type: "run.resume", eventId: nextId("resume"), runId: "run_p", instruction: "go on" }));
        break;
      case "cancel":
        deliver(ControlEvent.parse({ type: "run.cancel", eventId: nextId("cancel"), runId: "run_p" }));
        break;
    }
  }
  // "Eventually": however the sequence left it, a run that is told to stop leaves no step in flight.
  if (!isTerminal(state.status)) deliver(ControlEvent.parse({ type: "run.cancel", eventId: "final-cancel", runId: "run_p" }));
  expect(isTerminal(state.status)).toBe(true);
  for (const step of state.steps)
    expect(TERMINAL_PHASES.has(step.phase), `step ${step.stepId} is ${step.phase} in a ${state.status} run`).toBe(true);
}

function checkStep(goal: Goal, before: RunState, next: ReturnType<typeof transition>, event: ControlEvent, dispatched: Set<string>): void {
  const after = next.state;
  const context = `${event.type} (${event.eventId}) in ${before.status}`;
  if (!next.applied) {
    expect(after, context).toBe(before);
    expect(next.effects, context).toEqual([]);
    return;
  }
  // What the controller writes is what it must be able to read back.
  const parsed = RunState.safeParse(after);
  expect(parsed.success, `${context}: ${parsed.success ? "" : parsed.error.message}`).toBe(true);
  expect(after.spent.tokens, context).toBeGreaterThanOrEqual(before.spent.tokens);
  expect(after.spent.costUsd, context).toBeGreaterThanOrEqual(before.spent.costUsd);
  expect(after.spent.steps, context).toBeGreaterThanOrEqual(before.spent.steps);
  expect(after.spent.steps, context).toBeLessThanOrEqual(goal.budget.maxSteps);
  if (isTerminal(before.status)) expect(after.status, context).toBe(before.status);
  const overBudget = after.spent.tokens >= goal.budget.maxTokens || after.spent.costUsd >= goal.budget.maxCostUsd;
  if (overBudget) {
    expect(isTerminal(after.status), `${context}: over budget but ${after.status}`).toBe(true);
    expect(
      next.effects.filter((effect) => WORK_EFFECTS.has(effect.type)),
      context,
    ).toEqual([]);
  }
  if (isTerminal(after.status)) {
    for (const step of after.steps) expect(TERMINAL_PHASES.has(step.phase), `${context}: step ${step.stepId} is ${step.phase}`).toBe(true);
  }
  checkGroups(goal, before, next);
  for (const effect of next.effects) {
    // An effect the queues would reject is a run that silently stops moving.
    const valid = ControllerEffect.safeParse(effect);
    expect(valid.success, `${context}: ${effect.type} ${valid.success ? "" : valid.error.message}`).toBe(true);
    if (effect.type !== "dispatch_step") continue;
    // Only a job its queue lost is sent again under its id.
    if (event.type !== "jobs.lost") expect(dispatched.has(effect.jobId), `${context}: ${effect.jobId} dispatched twice`).toBe(false);
    dispatched.add(effect.jobId);
    const step = after.steps.find((candidate) => candidate.stepId === effect.body.stepId);
    expect(step?.attempt, `${context}: dispatched ${effect.body.stepId}, which the state does not hold at that attempt`).toBe(
      effect.body.attempt,
    );
  }
}

/**
 * A group never has more members than maxParallel; the budgets its members
 * are handed add up to at most what the run (a plan's group) or the parent
 * had left; and a group joins once, after which none of its members runs.
 */
function checkGroups(goal: Goal, before: RunState, next: ReturnType<typeof transition>): void {
  const after = next.state;
  for (const started of next.trace.filter((each) => each.kind === "group.started")) {
    const payload = started.payload as { stepIds: string[]; parentStepId: string | null };
    expect(payload.stepIds.length).toBeLessThanOrEqual(Math.min(goal.maxParallel ?? 4, 4));
    const bodies = next.effects.flatMap((effect) =>
      effect.type === "dispatch_step" && payload.stepIds.includes(effect.body.stepId) ? [effect.body] : [],
    );
    const tokens = bodies.reduce((sum, body) => sum + body.budget.maxTokens, 0);
    if (payload.parentStepId === null) {
      expect(tokens, "a plan's group gets more tokens than the run has left").toBeLessThanOrEqual(
        Math.max(0, goal.budget.maxTokens - before.spent.tokens),
      );
    } else {
      const parent = before.steps.find((step) => step.stepId === payload.parentStepId);
      expect(tokens, "children get more tokens than their parent had").toBeLessThanOrEqual(
        bodies[0]?.bounds.budget.maxTokens === undefined ? Number.POSITIVE_INFINITY : bodies[0].bounds.budget.maxTokens * bodies.length,
      );
      expect(parent, "a group's parent is a step of the run").toBeDefined();
    }
  }
  const joins = next.trace.filter((each) => each.kind === "group.joined");
  for (const join of joins) {
    const groupId = (join.payload as { groupId: string }).groupId;
    expect(before.groups?.find((group) => group.groupId === groupId)?.phase, `group ${groupId} joined twice`).toBe("running");
  }
  for (const group of after.groups ?? []) {
    if (group.phase === "running") continue;
    for (const stepId of group.stepIds) {
      const member = after.steps.find((step) => step.stepId === stepId);
      expect(["dispatched", "executing", "evaluating"].includes(member?.phase ?? ""), `${stepId} runs after its group ${group.phase}`).toBe(
        false,
      );
    }
  }
}

// Pure and CPU-bound: about 8 s alone, but the suite shares two cores with Redis-bound tests.
describe("transition() over random event sequences", { timeout: 120_000 }, () => {
  it(`keeps its invariants over ${NUM_RUNS} generated runs`, () => {
    fc.assert(
      fc.property(goalArb, fc.array(operationArb, { minLength: 1, maxLength: 80 }), (goal, operations) => {
        play(goal, operations);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
