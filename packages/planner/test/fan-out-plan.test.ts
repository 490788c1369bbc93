import { describe, expect, it } from "vitest";
import { jsonSchemaOf, Plan, SequentialPlan } from "@rein/contracts";
import type { PlannerContext } from "@rein/contracts/messages";
import { checkPlan } from "../src/plan-checks.ts";

const context: PlannerContext = {
  goal: "Which of three services is slowest?",
  grantedTools: ["read_file"],
  completedSteps: [],
  evidence: [],
  lessons: [],
  knownEvidenceIds: [],
};
const lookUp = (name: string, tools = ["read_file"]) => ({
  title: `Read ${name}`,
  objective: `Read ${name}.json and report its p99`,
  tools,
});
const parallel = (steps: unknown[]) => Plan.parse({ current_step: null, parallel: { steps, join: { rule: "all" } } });

describe("a plan's parallel group", () => {
  it("is accepted within the run's maxParallel, each step checked like a current step", () => {
    expect(checkPlan(parallel([lookUp("a"), lookUp("b")]), { ...context, maxParallel: 3 })).toBeUndefined();
    expect(checkPlan(parallel([lookUp("a"), lookUp("b", ["write_file"])]), { ...context, maxParallel: 3 })).toMatch(
      /^parallel.steps\[1\]: tools names write_file/,
    );
  });

  it("is refused with the reason when it names more steps than the run may run at once, or when fan-out is not offered", () => {
    expect(checkPlan(parallel([lookUp("a"), lookUp("b"), lookUp("c")]), { ...context, maxParallel: 2 })).toMatch(/more than the 2/);
    expect(checkPlan(parallel([lookUp("a"), lookUp("b")]), context)).toMatch(/not offered/);
  });

  it("is not in the schema a run that does not fan out is offered, so its prompt does not grow", () => {
    expect(JSON.stringify(jsonSchemaOf(SequentialPlan))).not.toContain("parallel");
    expect(JSON.stringify(jsonSchemaOf(Plan))).toContain("parallel");
  });
});
