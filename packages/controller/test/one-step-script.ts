import { plannerOfSteps } from "@rein/models/testing";

/** A run of one step that needs nothing: the planner plans it, then answers; the worker says hello. */
export const oneStepScript = {
  planner: plannerOfSteps(
    [
      {
        title: "Report",
        objective: "Report that there is nothing to do.",
        acceptance_criteria: [],
        tools: [],
        evidence_ids: [],
        output_contract: { description: "one sentence", format: "text" as const },
        budget: {},
      },
    ],
    { answer: "said hello", claims: [], gaps: ["nothing was observed"] },
  ),
  worker: [{ turns: [{ text: "Hello." }], repeatLast: true }],
};
