import type { GoalInput, ModelScriptInput, Plan } from "@rein/core";
import { echoConversation, echoTool } from "@rein/core/testing";

/** A step that needs nothing: one model turn, no tools, a text answer. */
export function noopPlan(title: string): Plan {
  return {
    current_step: {
      title,
      objective: "Report that there is nothing to do.",
      acceptance_criteria: [],
      tools: [],
      evidence_ids: [],
      output_contract: { description: "one sentence", format: "text" },
      budget: {},
    },
    next_steps: [],
    risks: [],
    done: false,
  };
}

export const noopGoal: GoalInput = { text: "Bench: is there anything to do in steps that need nothing?", budget: { maxSteps: 25, maxTokens: 1_000_000_000 } };

/** The worker's no-op model: whatever the step, it answers at once. */
export const noopWorkerScript: ModelScriptInput = { worker: [{ turns: [{ text: "Nothing to do." }], repeatLast: true }] };

/** The planner of a run of exactly `steps` no-op steps, then done. */
export function plannerScript(steps: number): ModelScriptInput {
  const planned = Array.from({ length: steps }, (_, index) => ({
    // Each planner prompt starts "Completed steps: N\n"; the newline keeps 1 from matching 10-19.
    match: `Completed steps: ${index === 0 ? "none" : index}\n`,
    turns: [{ output: noopPlan(`No-op step ${index + 1}`) }],
  }));
  const done = { match: `Completed steps: ${steps}\n`, turns: [{ output: { current_step: null, next_steps: [], risks: [], done: true, answer: { answer: "all steps done", claims: [], gaps: ["the no-op steps observe nothing, so no claim can be backed by evidence"] } } }] };
  return { planner: [...planned, done] };
}


export const echoTitle = (turns: number) => `Echo ${turns} times`;

/** For each count n, a conversation of n - 1 turns that each call echo with a new argument (no cache hits), then a final answer. */
export function echoWorkerScript(turnCounts: readonly number[]): ModelScriptInput {
  return { worker: turnCounts.map((turns) => echoConversation(echoTitle(turns), turns - 1)) };
}

/** A plan whose one step runs exactly `turns` model turns through the echo conversation. */
export function echoPlan(turns: number): Plan {
  const plan = noopPlan(echoTitle(turns));
  if (!plan.current_step) throw new Error("noopPlan always has a step");
  plan.current_step.tools = [echoTool.name];
  // The scripted model bills the whole prompt each turn, so a long step needs a token budget to match.
  plan.current_step.budget = { maxTurns: turns, maxToolCalls: turns, maxTokens: 100_000_000 };
  return plan;
}

export const echoGoal: GoalInput = { text: "Bench: echo numbers.", tools: [{ name: echoTool.name }], budget: { maxSteps: 25, maxTokens: 1_000_000_000 } };

/** The planner of a run of one step of `turns` echo turns, then done. */
export function echoPlannerScript(turns: number): ModelScriptInput {
  const claim = { text: "echo answered", evidence: ["{{evidence:echo}}"] };
  const done = { current_step: null, next_steps: [], risks: [], done: true, answer: { answer: "echoed every number", claims: [claim], gaps: [] } };
  return { planner: [{ match: "Completed steps: none\n", turns: [{ output: echoPlan(turns) }] }, { match: "Completed steps: 1\n", turns: [{ output: done }] }] };
}
