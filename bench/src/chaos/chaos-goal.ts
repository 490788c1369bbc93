import { fileURLToPath } from "node:url";
import type { GoalInput } from "@rein/contracts";
import type { ModelScriptInput } from "@rein/models";
import { plannerOfSteps } from "@rein/models/testing";

/** A plugin whose one tool, `wait`, is a read: a worker killed inside it leaves nothing unknown behind. */
const WAIT_PLUGIN_DIR = fileURLToPath(new URL("./wait-plugin", import.meta.url));

/** The file each run's effect appends to, in the run's workspace: one line per time the effect ran. */
export const EFFECTS_FILE = "effects.log";

const STEP_TITLE = "Record the effect, then wait";

const effect = { command: "node", args: ["-e", `require("fs").appendFileSync(${JSON.stringify(EFFECTS_FILE)}, "effect\\n")`] };

/** Long enough that faults land inside steps, short enough for hundreds of runs. */
const wait = (ms: number) => ({ ms });

export const chaosGoal: GoalInput = {
  text: "Chaos check: record one effect, then wait.",
  tools: [{ name: "run_command" }, { name: "wait" }],
  budget: { maxSteps: 4 },
};

/** Every third run fans out: two children side by side, each the one step's effect and wait, joined by `all`. */
export const FAN_OUT_CHILDREN = 2;
export const chaosFanOutGoal: GoalInput = {
  text: "Chaos check: record one effect per child, side by side, then wait.",
  tools: [{ name: "run_command" }, { name: "wait" }],
  maxParallel: FAN_OUT_CHILDREN,
  budget: { maxSteps: 4 },
};

/** How many times a run's effect must have run: once per step that records it. */
export const expectedEffects = (goal: GoalInput): number => (goal === chaosFanOutGoal ? FAN_OUT_CHILDREN : 1);

/**
 * One step: a non-idempotent effect (`run_command`) and a wait in the same
 * turn, so a worker killed in the wait dies before the turn's checkpoint and
 * the resumed step must replay the effect's recorded outcome, not run it again.
 * The wait is a read, so the resumed step may run it again. The planner's
 * answer, the plan a verdict asks for and so the one handed over in process,
 * takes `answerMs` to come.
 */
export function chaosScript(waitMs: number, answerMs: number): ModelScriptInput {
  const step = (side: string) => ({
    title: `${STEP_TITLE} (side ${side})`,
    objective: "Run the effect command once, then the wait command, and answer.",
    tools: ["run_command", "wait"],
    output_contract: { description: "one sentence", format: "text" },
    budget: { maxTurns: 4, maxToolCalls: 4 },
  });
  const fanOut = (completed: string) => [`Completed steps: ${completed}\n`, `Goal: ${chaosFanOutGoal.text}`];
  return {
    planner: [
      // First: a conversation is chosen by the first whose match strings all occur, and plannerOfSteps' match any goal.
      {
        match: fanOut("none"),
        turns: [{ output: { current_step: null, done: false, parallel: { steps: [step("A"), step("B")], join: { rule: "all" } } } }],
      },
      {
        match: fanOut(String(FAN_OUT_CHILDREN)),
        turns: [
          {
            delayMs: answerMs,
            output: {
              current_step: null,
              done: true,
              answer: {
                answer: "each child recorded its effect",
                claims: [{ text: "the effect command ran", evidence: ["{{evidence:run_command}}"] }],
                gaps: [],
              },
            },
          },
        ],
      },
      ...answeringAfter(
        answerMs,
        plannerOfSteps(
          [
            {
              title: STEP_TITLE,
              objective: "Run the effect command once, then the wait command, and answer.",
              tools: ["run_command", "wait"],
              output_contract: { description: "one sentence", format: "text" },
              budget: { maxTurns: 4, maxToolCalls: 4 },
            },
          ],
          {
            answer: "the effect was recorded",
            claims: [{ text: "the effect command ran", evidence: ["{{evidence:run_command}}"] }],
            gaps: [],
          },
        ),
      ),
    ],
    worker: [
      {
        match: STEP_TITLE,
        turns: [
          {
            toolCalls: [
              { name: "run_command", input: effect },
              { name: "wait", input: wait(waitMs) },
            ],
          },
          { text: "Recorded the effect and waited." },
        ],
      },
    ],
  };
}

type PlannerScript = NonNullable<ModelScriptInput["planner"]>;

/** `planner` with its last conversation, the one that answers, answering after `ms`. */
function answeringAfter(ms: number, planner: PlannerScript): PlannerScript {
  return planner.map((conversation, index) =>
    index === planner.length - 1 ? { ...conversation, turns: conversation.turns.map((turn) => ({ ...turn, delayMs: ms })) } : conversation,
  );
}

/** The deployment config every role process reads: scripted models, `node` allowed for run_command without asking, the wait plugin. */
export function chaosConfig(paths: { workspaceRoot: string; keysDir: string; script: string }, prefix: string): Record<string, unknown> {
  return {
    prefix,
    workspaceRoot: paths.workspaceRoot,
    keysDir: paths.keysDir,
    providers: { scripted: { kind: "scripted", script: paths.script, maxRetries: 0 } },
    tools: { commands: ["node"] },
    plugins: [{ path: WAIT_PLUGIN_DIR, enabled: true }],
    policy: [
      {
        id: "chaos:allow-node",
        tool: "run_command",
        decision: "allow",
        commands: ["node"],
        reason: "the chaos suite's effect and wait are node one-liners",
      },
    ],
    // Every retiring run's trace is packed, however short, so packing meets the faults too; the checks read the packed traces.
    retention: { traceCompaction: { minEvents: 1 } },
  };
}
