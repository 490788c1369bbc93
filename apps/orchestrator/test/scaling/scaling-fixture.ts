import { existsSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { GoalInput } from "@rein/contracts";
import type { ModelScriptInput } from "@rein/models";
import { type AnyTool, defineTool } from "@rein/tools";
import { plannerOfSteps } from "@rein/models/testing";
import { z } from "zod";

/** The file a run's effects land in, inside its workspace. */
export const EFFECTS_FILE = "effects.log";
/** One line `<runId> <pid>` each time a worker reaches the gate. */
export const ARRIVALS_FILE = "arrivals.log";
/** One line `<runId> <n> <pid>` each time an effect is performed, to see which process did it. */
export const EXECUTIONS_FILE = "executions.log";
/** The gate opens when this file exists. */
export const OPEN_FILE = "open";

const STEP_TITLE = "Record two effects around a slow wait";

const APPEND_EFFECT = "append_effect";

/**
 * A non-idempotent effect: every call appends a line, so a step re-run that
 * re-performed it instead of replaying its recorded result shows a double.
 */
export function appendEffect(gateDir: string): AnyTool {
  return defineTool({
    name: APPEND_EFFECT,
    description: `Appends the line "<runId> <n>" to ${EFFECTS_FILE} in the run's workspace. Each call adds a line.`,
    effect: "write",
    idempotent: false,
    input: z.object({ n: z.number().int().positive() }),
    scope: () => ({ paths: [EFFECTS_FILE] }),
    run: async ({ n }, context) => {
      await appendFile(await context.workspace.resolve(EFFECTS_FILE), `${context.runId} ${n}\n`);
      await appendFile(join(gateDir, EXECUTIONS_FILE), `${context.runId} ${n} ${process.pid}\n`);
      return `appended ${n}`;
    },
  });
}

/**
 * Holds the step until the test opens the gate, so the test can kill workers
 * while every step is provably between its two effects, never inside one.
 */
export function waitForGate(gateDir: string): AnyTool {
  return defineTool({
    name: "wait_for_gate",
    description: "Waits until the operator opens the gate.",
    effect: "read",
    input: z.object({}),
    timeoutMs: 90_000,
    run: async (_args, context) => {
      await appendFile(join(gateDir, ARRIVALS_FILE), `${context.runId} ${process.pid}\n`);
      while (!existsSync(join(gateDir, OPEN_FILE))) await delay(20, undefined, { signal: context.signal });
      return "the gate is open";
    },
  });
}

export const scalingGoal: GoalInput = {
  text: "Scaling check: record two effects around a slow wait.",
  tools: [{ name: APPEND_EFFECT }, { name: "wait_for_gate" }],
  budget: { maxSteps: 3 },
};

/** Plan one step, then done; the worker appends and waits at the gate, appends again, answers. */
export const scalingScript: ModelScriptInput = {
  planner: plannerOfSteps(
    [
      {
        title: STEP_TITLE,
        objective: "Append effect 1, wait for the gate, append effect 2.",
        tools: [APPEND_EFFECT, "wait_for_gate"],
        output_contract: { description: "one sentence", format: "text" },
        budget: { maxTurns: 5, maxToolCalls: 6 },
      },
    ],
    {
      answer: "both effects recorded",
      claims: [{ text: "the effects were recorded", evidence: [`{{evidence:${APPEND_EFFECT}}}`] }],
      gaps: [],
    },
  ),
  worker: [
    {
      match: STEP_TITLE,
      turns: [
        // One turn: the effect, then the wait. A worker killed in the wait dies before the turn's
        // checkpoint, so the resumed step calls the effect again and must get its recorded result.
        {
          toolCalls: [
            { name: APPEND_EFFECT, input: { n: 1 } },
            { name: "wait_for_gate", input: {} },
          ],
        },
        { toolCalls: [{ name: APPEND_EFFECT, input: { n: 2 } }] },
        { text: "Recorded effect 1 and effect 2." },
      ],
    },
  ],
};
