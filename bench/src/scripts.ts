import type { GoalInput, Plan, StepSpec } from "@rein/contracts";
import type { ModelScriptInput } from "@rein/models";
import { plannerOfSteps } from "@rein/models/testing";
import { echoConversation } from "@rein/runtime/testing";
import { echoTool } from "@rein/tools/testing";

/** A step that needs nothing: one model turn, no tools, a text answer. */
function noopStep(title: string): StepSpec {
  return {
    title,
    objective: "Report that there is nothing to do.",
    acceptance_criteria: [],
    tools: [],
    evidence_ids: [],
    output_contract: { description: "one sentence", format: "text" },
    budget: {},
  };
}

/** The plan of one step and nothing after it. */
function planOf(step: StepSpec): Plan {
  return { current_step: step, next_steps: [], risks: [], done: false };
}

/** A plan whose one step needs nothing (noopStep). */
export function noopPlan(title: string): Plan {
  return planOf(noopStep(title));
}

export const noopGoal: GoalInput = {
  text: "Bench: is there anything to do in steps that need nothing?",
  kind: "question",
  budget: { maxSteps: 25, maxTokens: 1_000_000_000 },
};

/** The worker's no-op model: whatever the step, it answers at once. */
export const noopWorkerScript: ModelScriptInput = { worker: [{ turns: [{ text: "Nothing to do." }], repeatLast: true }] };

/** The planner of a run of exactly `steps` no-op steps, then done. */
export function plannerScript(steps: number): ModelScriptInput {
  const planned = Array.from({ length: steps }, (_, index) => noopStep(`No-op step ${index + 1}`));
  return {
    planner: plannerOfSteps(planned, {
      answer: "all steps done",
      claims: [],
      gaps: ["the no-op steps observe nothing, so no claim can be backed by evidence"],
    }),
  };
}

export const echoTitle = (turns: number) => `Echo ${turns} times`;

/** For each count n, a conversation of n - 1 turns that each call echo with a new argument (no cache hits), then a final answer. */
export function echoWorkerScript(turnCounts: readonly number[]): ModelScriptInput {
  return { worker: turnCounts.map((turns) => echoConversation(echoTitle(turns), turns - 1)) };
}

/** A step that runs exactly `turns` model turns through the echo conversation. */
function echoStep(turns: number): StepSpec {
  // The scripted model bills the whole prompt each turn, so a long step needs a token budget to match.
  return {
    ...noopStep(echoTitle(turns)),
    tools: [echoTool.name],
    budget: { maxTurns: turns, maxToolCalls: turns, maxTokens: 100_000_000 },
  };
}

/** The plan of one echo step (echoStep). */
export function echoPlan(turns: number): Plan {
  return planOf(echoStep(turns));
}

export const echoGoal: GoalInput = {
  text: "Bench: echo numbers.",
  tools: [{ name: echoTool.name }],
  budget: { maxSteps: 25, maxTokens: 1_000_000_000 },
};

/** The planner of a run of one step of `turns` echo turns, then done. */
export function echoPlannerScript(turns: number): ModelScriptInput {
  const claim = { text: "echo answered", evidence: ["{{evidence:echo}}"] };
  return { planner: plannerOfSteps([echoStep(turns)], { answer: "echoed every number", claims: [claim], gaps: [] }) };
}
