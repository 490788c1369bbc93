import { describe, expect, it } from "vitest";
import type { RunState, TraceEvent } from "@rein/contracts/run";
import type { ModelScriptInput } from "@rein/models";
import { harnessesPerTest } from "./support/harnesses-per-test.ts";

/**
 * Issue 28 case 7: a planner's checks could freeze the evaluator. A
 * catastrophic regex against a worker's output, and a file check on a FIFO
 * that run_command made, each get a verdict that says why, and the run
 * goes on to its end.
 */
const harnesses = harnessesPerTest();
const ended = (state: RunState) => ["done", "failed", "escalated"].includes(state.status);

async function run(
  script: ModelScriptInput,
  config: Parameters<typeof harnesses.start>[2] = {},
): Promise<{ state: RunState; trace: TraceEvent[] }> {
  const harness = await harnesses.start(script, [], config);
  const runId = await harness.submit({
    text: "Produce the marker and check it",
    tools: [{ name: "run_command", scope: { commands: ["mkfifo"] } }],
  });
  const state = await harness.waitFor(runId, ended);
  return { state, trace: await harness.runtime.trace.read(runId) };
}

const stepWith = (criterion: Record<string, unknown>, tools: string[] = []) => ({
  current_step: {
    title: "Produce the marker",
    objective: "Write the marker text as the step's output and report it.",
    tools,
    acceptance_criteria: [criterion],
  },
  done: false,
  goal_kind: "change",
});
const giveUp = {
  current_step: null,
  done: true,
  answer: { answer: "the marker could not be checked", claims: [], gaps: ["the check never passed"] },
};
const planner = (criterion: Record<string, unknown>, tools?: string[]): ModelScriptInput["planner"] => [
  { match: "Completed steps: none\n", turns: [{ output: stepWith(criterion, tools) }] },
  { match: "Latest verdict:", turns: [{ output: giveUp }], repeatLast: true },
];

describe("the evaluator cannot be frozen by a planner's checks (issue 28 case 7)", () => {
  it("a catastrophic regex against forty a and a b gives a verdict that says the output does not match", async () => {
    const { state, trace } = await run({
      planner: planner({ kind: "output_matches", description: "the output is all a", pattern: "^(a+)+$" }),
      worker: [{ match: "Task: Produce the marker", turns: [{ text: `${"a".repeat(40)}b` }], repeatLast: true }],
    });
    expect(ended(state)).toBe(true);
    const first = trace.find((event) => event.kind === "verdict.ready");
    expect(first?.payload.decision).toBe("retry");
    expect(JSON.stringify(first?.payload.reasons)).toContain("output does not match /^(a+)+$/");
  });

  it("a pattern RE2 cannot express is refused with the reason and the step is replanned, never run by backtracking", async () => {
    const { trace } = await run({
      planner: planner({ kind: "output_matches", description: "the output repeats", pattern: "^(a+)\\1$" }),
      worker: [{ match: "Task: Produce the marker", turns: [{ text: "aaaa" }], repeatLast: true }],
    });
    const first = trace.find((event) => event.kind === "verdict.ready");
    expect(first?.payload.decision).toBe("replan");
    expect(JSON.stringify(first?.payload.reasons)).toMatch(
      /check cannot run as written: the output repeats: .*invalid escape sequence.*expected an RE2 pattern/,
    );
  });

  it("a file check on a FIFO the worker made with run_command fails with the reason, and the run goes on", async () => {
    const { state, trace } = await run(
      {
        planner: planner({ kind: "file_contains", description: "the marker file says ready", path: "marker", text: "ready" }, [
          "run_command",
        ]),
        worker: [
          {
            match: "Task: Produce the marker",
            turns: [{ toolCalls: [{ name: "run_command", input: { command: "mkfifo", args: ["marker"] } }] }, { text: "made the marker" }],
          },
        ],
      },
      {
        config: {
          tools: { commands: ["mkfifo"] },
          policy: [{ id: "deploy:allow-mkfifo", tool: "run_command", decision: "allow", commands: ["mkfifo"] }],
        },
      },
    );
    expect(trace.find((event) => event.kind === "tool.executed")?.payload).toMatchObject({ tool: "run_command", exitCode: 0 });
    expect(ended(state)).toBe(true);
    const first = trace.find((event) => event.kind === "verdict.ready");
    expect(first?.payload.decision).toBe("retry");
    expect(JSON.stringify(first?.payload.reasons)).toContain(
      "cannot read marker: it is a FIFO (named pipe), and a file check reads regular files only",
    );
  });
});
