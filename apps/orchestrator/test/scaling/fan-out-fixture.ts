import { existsSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { GoalInput } from "@rein/contracts";
import type { ModelScriptInput } from "@rein/models";
import { type AnyTool, defineTool } from "@rein/tools";
import { z } from "zod";
import { ARRIVALS_FILE, OPEN_FILE } from "./scaling-fixture.ts";

const HOLD = "hold_at_gate";
const REGIONS = ["north", "south", "west"] as const;

/** Like waitForGate, but each arrival names its step: `<runId> <stepId> <pid>`, so the test knows which process holds which child. */
export function holdAtGate(gateDir: string): AnyTool {
  return defineTool({
    name: HOLD,
    description: "Waits until the operator opens the gate.",
    effect: "read",
    // Each child asks for its own region: the run's read cache answers only a call made before with the same arguments.
    input: z.object({ region: z.string() }),
    timeoutMs: 90_000,
    run: async (_args, context) => {
      await appendFile(join(gateDir, ARRIVALS_FILE), `${context.runId} ${context.stepId} ${process.pid}\n`);
      while (!existsSync(join(gateDir, OPEN_FILE))) await delay(20, undefined, { signal: context.signal });
      return "the gate is open";
    },
  });
}

export const fanOutGoal: GoalInput = {
  text: "Fan-out check: three look-ups held at a gate, joined once.",
  kind: "question",
  tools: [{ name: HOLD }],
  maxParallel: 3,
  budget: { maxSteps: 6 },
};

const lookup = (region: string) => ({
  title: `Look up ${region}`,
  objective: `Wait at the gate, then report on ${region}.`,
  tools: [HOLD],
  output_contract: { description: "one sentence", format: "text" },
  budget: { maxTurns: 3, maxToolCalls: 2 },
});

/** The planner fans out into three children; each waits at the gate once, then answers; the joined run is done. */
export const fanOutScript: ModelScriptInput = {
  planner: [
    {
      match: "Completed steps: none",
      turns: [{ output: { current_step: null, done: false, parallel: { steps: REGIONS.map(lookup), join: { rule: "all" } } } }],
    },
    {
      match: `Goal: ${fanOutGoal.text}`,
      turns: [
        { output: { current_step: null, done: true, answer: { answer: "joined", claims: [], gaps: ["the look-ups observe nothing"] } } },
      ],
    },
  ],
  worker: REGIONS.map((region) => ({
    match: `Look up ${region}`,
    turns: [{ toolCalls: [{ name: HOLD, input: { region } }] }, { text: `${region} reports nothing.` }],
  })),
};
