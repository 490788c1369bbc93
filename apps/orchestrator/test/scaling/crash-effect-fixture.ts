import { existsSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { GoalInput } from "@rein/contracts";
import type { ModelScriptInput } from "@rein/models";
import { type AnyTool, defineTool } from "@rein/tools";
import { plannerOfSteps } from "@rein/models/testing";
import { z } from "zod";

export const EFFECTS_FILE = "effects.log";
/** One line `<runId> <pid>` each time the effect has been performed, so the test knows when to kill. */
export const STARTED_FILE = "started.log";
const DEPLOY = "deploy_release";
const STEP_TITLE = "Deploy the release once";

/**
 * A non-idempotent effect that never finishes on its own: it appends its
 * line, then hangs, so a worker killed now dies in the middle of the call,
 * after the effect and before its outcome.
 */
export function deployRelease(gateDir: string): AnyTool {
  return defineTool({
    name: DEPLOY,
    description: `Deploys a release; appends "<runId> <release>" to ${EFFECTS_FILE}. Not idempotent.`,
    effect: "write",
    input: z.object({ release: z.string() }),
    scope: () => ({ paths: [EFFECTS_FILE] }),
    timeoutMs: 120_000,
    run: async ({ release }, context) => {
      await appendFile(await context.workspace.resolve(EFFECTS_FILE), `${context.runId} ${release}\n`);
      await appendFile(join(gateDir, STARTED_FILE), `${context.runId} ${process.pid}\n`);
      while (!existsSync(join(gateDir, "never"))) await delay(20, undefined, { signal: context.signal });
      return `deployed ${release}`;
    },
  });
}

export const crashGoal: GoalInput = { text: "Crash check: deploy the release once.", tools: [{ name: DEPLOY }], budget: { maxSteps: 2 } };

export const crashScript: ModelScriptInput = {
  planner: plannerOfSteps(
    [
      {
        title: STEP_TITLE,
        objective: "Deploy release v2.",
        tools: [DEPLOY],
        output_contract: { description: "one sentence", format: "text" },
        budget: { maxTurns: 3, maxToolCalls: 3 },
      },
    ],
    // Never reached: the worker is killed inside the deploy, and the run escalates.
    { answer: "release v2 was deployed", claims: [{ text: "release v2 was deployed", evidence: [`{{evidence:${DEPLOY}}}`] }], gaps: [] },
  ),
  worker: [{ match: STEP_TITLE, turns: [{ toolCalls: [{ name: DEPLOY, input: { release: "v2" } }] }, { text: "Deployed v2." }] }],
};
