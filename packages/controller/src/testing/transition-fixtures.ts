import { Goal, hashOf, type StepResult, StepSpec, type Usage, zeroUsage } from "@rein/contracts";
import type { RunState, StepState, Verdict } from "@rein/contracts/run";
import { ControlEvent } from "@rein/contracts/messages";
import type { TransitionSettings } from "../transition/transition.ts";
import { newRunState } from "../intake/submit-goal.ts";

/** States, results and events for tests that drive `transition()` directly. */
export const now = new Date("2026-11-30T00:00:00.000Z");
export const settings: TransitionSettings = {
  now,
  packetTtlMs: 60_000,
  approvalTtlMs: 3_600_000,
  maxDepth: 3,
  lostStepRedispatches: 2,
  resendsPerJob: 2,
};
export const spec = StepSpec.parse({ title: "Fix add()", objective: "Change src/add.js so add returns a sum", tools: ["read_file"] });

export function baseState(overrides: Partial<RunState> = {}): RunState {
  const goal = Goal.parse({ text: "Fix the bug", tools: [{ name: "read_file" }, { name: "run_command" }] });
  return { ...newRunState(goal, "run_t", now.toISOString()), version: 3, planCount: 1, ...overrides };
}

export const step = (phase: StepState["phase"], extra: Partial<StepState> = {}): StepState => ({
  stepId: "s1",
  spec,
  attempt: 1,
  phase,
  parentStepId: null,
  depth: 0,
  usage: zeroUsage(),
  resumes: 0,
  redispatches: 0,
  attemptFingerprints: [],
  ...extra,
});

export const usage = (tokens: number, costUsd = 0): Usage => ({ ...zeroUsage(), inputTokens: tokens, costUsd });

export const result = (status: StepResult["status"], extra: Partial<StepResult> = {}): StepResult => ({
  schemaVersion: 1,
  runId: "run_t",
  stepId: "s1",
  attempt: 1,
  status,
  output: "ok",
  summary: "did it",
  claims: [],
  observations: [],
  toolCalls: [],
  fingerprints: [hashOf("a")],
  usage: { ...zeroUsage(), inputTokens: 10, outputTokens: 5 },
  turns: 2,
  ...extra,
});

export const verdict = (decision: Verdict["decision"], extra: Partial<Verdict> = {}): Verdict => ({
  schemaVersion: 1,
  runId: "run_t",
  stepId: "s1",
  attempt: 1,
  decision,
  reasons: [`because ${decision}`],
  feedback: decision === "retry" ? "change strategy" : undefined,
  checks: [],
  ...extra,
});

export const event = <T extends ControlEvent["type"]>(type: T, fields: Record<string, unknown> = {}) =>
  ControlEvent.parse({ type, eventId: `ev-${type}`, runId: "run_t", ...fields }) as Extract<ControlEvent, { type: T }>;

export const planned = { done: false, current_step: spec, next_steps: ["Verify"], risks: [] };
