import type { GoalInput } from "@rein/contracts";
import type { ModelScriptInput } from "@rein/models";
import { type AnyTool, defineTool, z } from "@rein/tools";
import { oneStepPlanner } from "@rein/models/testing";

/** A read tool that reports a status value as pending; `output` replaces what it answers. */
export function probeTool(options: { description?: string; output?: (key: string) => string } = {}): AnyTool {
  const output = options.output ?? ((key: string) => `${key}: pending`);
  return defineTool({
    name: "probe",
    description: options.description ?? "Read a status value. Read-only.",
    effect: "read",
    input: z.object({ key: z.string().default("status") }),
    run: async (args) => output(args.key),
  });
}

/** A goal whose run is one step that calls probe once. */
export const probeGoal: GoalInput = { text: "Find out the status", tools: [{ name: "probe" }] };

/** The models of `probeGoal`'s run: one step, one probe call, then the answer the probe backs. */
export const probeScript: ModelScriptInput = {
  planner: oneStepPlanner(
    probeGoal.text,
    {
      title: "Probe the status",
      objective: "Read the status value with probe once.",
      tools: ["probe"],
      output_contract: { description: "one line", format: "text" },
    },
    { answer: "the probe reports pending", claims: [{ text: "the probe reports pending", evidence: ["{{evidence:probe}}"] }], gaps: [] },
  ),
  worker: [{ match: "Probe the status", turns: [{ toolCalls: [{ name: "probe", input: {} }] }, { text: "status: pending" }] }],
};
