import { describe, expect, it } from "vitest";
import { Goal, type GoalInput, type PolicyRule } from "@rein/contracts";
import type { RunState, TraceEvent } from "@rein/contracts/run";
import type { ModelScriptInput } from "@rein/models";
import { SECRET, secretLeaks } from "@rein/presenter/testing";
import { harnessesPerTest } from "./support/harnesses-per-test.ts";

/**
 * Issue 28 case 4: a planner-written acceptance check tried to carry a
 * secret out. It runs with no secret unless the goal's run_command grant
 * names one in `checkSecrets`, and the policy decides it by the command it
 * runs, as for a worker's run_command, not as a read.
 */
const REVERSED = [...SECRET].reverse().join("");
const TOKEN = "CHECK_TOKEN";
const OTHER = "OTHER_TOKEN";

// Prints the token reversed (no redactor knows that form), then fails so its output becomes feedback.
const EXFILTRATE = `const v = process.env.${TOKEN} || ""; console.log("token reversed: " + [...v].reverse().join("") + " (" + v.length + " chars)"); process.exit(1)`;
// Passes only when the token is in the check's environment and the other secret is not; prints nothing of either.
const NEEDS_TOKEN = `process.exit(process.env.${TOKEN} && !process.env.${OTHER} ? 0 : 1)`;

const step = (argv: string[]) => ({
  title: "Write the release note",
  objective: "Write a one-line release note for the fix and report it.",
  tools: [],
  acceptance_criteria: [{ kind: "command" as const, description: "the release check passes", argv, expectExitCode: 0 }],
});

const script = (argv: string[]): ModelScriptInput => ({
  planner: [
    { match: "Completed steps: none\n", turns: [{ output: { current_step: step(argv), done: false, goal_kind: "text" } }] },
    {
      match: "Latest verdict: replan",
      turns: [{ output: { current_step: null, done: true, answer: { answer: "stopped", claims: [], gaps: ["the check could not run"] } } }],
      repeatLast: true,
    },
    {
      match: "Completed steps: 1\n",
      turns: [{ output: { current_step: null, done: true, answer: { answer: "noted", claims: [], gaps: ["nothing was checked"] } } }],
      repeatLast: true,
    },
  ],
  worker: [
    { match: "Task: Write the release note", turns: [{ text: "Release note: the crash on empty input is fixed." }], repeatLast: true },
  ],
});

const allowNode: PolicyRule = { id: "deploy:allow-node", tool: "run_command", decision: "allow", commands: ["node"] };
const harnesses = harnessesPerTest();

async function run(
  argv: string[],
  options: { policy?: PolicyRule[]; grant?: GoalInput["tools"] },
): Promise<{ state: RunState; trace: TraceEvent[]; requests: string }> {
  const harness = await harnesses.start(script(argv), [], {
    env: { ...process.env, [TOKEN]: SECRET, [OTHER]: "other-secret-value" },
    config: {
      tools: { commands: ["node"] },
      secrets: [
        { env: TOKEN, tools: ["run_command"] },
        { env: OTHER, tools: ["run_command"] },
      ],
      policy: options.policy ?? [allowNode],
    },
  });
  const runId = await harness.submit({
    text: "Write a release note for the empty-input fix",
    tools: options.grant ?? [{ name: "run_command", scope: { commands: ["node"] } }],
  });
  const state = await harness.waitFor(runId, (current) => ["done", "failed", "escalated"].includes(current.status));
  const trace = await harness.runtime.trace.read(runId);
  const requests = JSON.stringify([...harness.worker.requests, ...harness.planner.requests]);
  return { state, trace, requests };
}

const leaksOf = (text: string) => [...secretLeaks(text), ...secretLeaks(text, REVERSED)];

describe("acceptance checks carry no secret out (issue 28 case 4)", () => {
  it("a check that prints a secret reversed gets none: nothing of it reaches the verdict, the worker, the run state or the trace", async () => {
    const { state, trace, requests } = await run(["node", "-e", EXFILTRATE], {});
    const finished = trace.filter((event) => event.kind === "check.command_finished");
    // The check did run (the deployment allows node) and failed, so its output went on as feedback.
    expect(finished.length).toBeGreaterThan(0);
    expect(finished[0]?.payload.exitCode).toBe(1);
    const feedback = state.verdicts.map((verdict) => verdict.feedback ?? "").join("\n");
    expect(feedback).toContain("token reversed:  (0 chars)");
    expect(requests).toContain("token reversed:  (0 chars)");
    expect(leaksOf(JSON.stringify(state.verdicts))).toEqual([]);
    expect(leaksOf(requests)).toEqual([]);
    expect(leaksOf(JSON.stringify(state))).toEqual([]);
    expect(leaksOf(JSON.stringify(trace))).toEqual([]);
  });

  it("the policy decides a check by the command it runs, as for run_command: with no rule allowing node, a person would be asked, so it is not run", async () => {
    const { state, trace } = await run(["node", "-e", NEEDS_TOKEN], { policy: [] });
    const decided = trace.find((event) => event.kind === "check.permission.decided");
    expect(decided?.payload).toMatchObject({
      decision: "ask",
      rule: "default:destructive",
      effect: "destructive",
      scope: { commands: ["node"] },
    });
    expect(trace.some((event) => event.kind === "check.command_finished")).toBe(false);
    expect(state.verdicts[0]?.decision).toBe("replan");
    expect(state.verdicts[0]?.reasons.join(" ")).toMatch(/check cannot run as written/);
  });

  it("a goal that names the secret in its run_command grant's checkSecrets hands it to its checks, and only that one", async () => {
    const { trace } = await run(["node", "-e", NEEDS_TOKEN], {
      grant: [{ name: "run_command", scope: { commands: ["node"] }, checkSecrets: [TOKEN] }],
    });
    const finished = trace.filter((event) => event.kind === "check.command_finished");
    expect(finished.map((event) => event.payload.exitCode)).toEqual([0]);
  });

  it("checkSecrets belongs to the run_command grant alone: on another grant the goal is refused, saying where it goes", () => {
    const parsed = Goal.safeParse({ text: "Read the config", tools: [{ name: "read_file", checkSecrets: [TOKEN] }] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toContain("expected it only on the run_command grant");
  });
});
