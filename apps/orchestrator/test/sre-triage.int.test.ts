import { describe, expect, it } from "vitest";
import type { RunState, TraceEvent } from "@rein/contracts/run";
import type { ReinRuntime } from "@rein/runtime";
import { cliEnv, cliRuntimesClosedAfterAll, rein, startRein } from "./support/cli.ts";
import { waitForRun } from "@rein/runtime/testing";

const runtimeFor = cliRuntimesClosedAfterAll();

/** A CLI environment plus a runtime on the same Redis prefix, to read what the CLI left behind. */
function setup(): { env: NodeJS.ProcessEnv; runtime: ReinRuntime } {
  const env = cliEnv();
  return { env, runtime: runtimeFor(env) };
}

const runIdOf = (stdout: string): string => {
  const runId = /run (run_[a-z0-9]+) submitted/.exec(stdout)?.[1];
  if (!runId) throw new Error(`no run id in:\n${stdout}`);
  return runId;
};

/** Observation id → the tool that produced it, from the trace's `observation.made` events. */
const observationTools = (events: TraceEvent[]): Map<string, string> =>
  new Map(
    events
      .filter((event) => event.kind === "observation.made")
      .map((event) => [String(event.payload.observationId), String(event.payload.tool)]),
  );

const executions = (events: TraceEvent[], tool: string) =>
  events.filter((event) => event.kind === "tool.executed" && event.payload.tool === tool);

function expectDiagnosisBackedByTrace(state: RunState, events: TraceEvent[]): void {
  const answer = state.result?.answer;
  expect(answer?.claims.length).toBeGreaterThanOrEqual(5);
  const observed = observationTools(events);
  for (const claim of answer?.claims ?? []) {
    expect(claim.evidence.length).toBeGreaterThan(0);
    for (const id of claim.evidence) expect(observed.has(id), `${id} (cited by "${claim.text}") is an observation in the trace`).toBe(true);
  }
  expect(state.stopReason).toBe("the evaluator verified the answer");
  const verdicts = events.filter((event) => event.kind === "verdict.ready");
  expect(verdicts.at(-1)?.payload.decision).toBe("done");
  expect(events.findIndex((event) => event.kind === "run.done")).toBeGreaterThan(events.indexOf(verdicts.at(-1) as TraceEvent));
  expect(state.result?.claims.map((claim) => claim.status)).toEqual((answer?.claims ?? []).map(() => "supported"));
  const citedTools = new Set((answer?.claims ?? []).flatMap((claim) => claim.evidence.map((id) => observed.get(id))));
  expect([...citedTools].sort()).toEqual(["inspect_deployments", "query_metrics", "read_host_state", "search_logs"]);
  const claimText = (answer?.claims ?? []).map((claim) => claim.text).join("\n");
  expect(claimText).toMatch(/connection pool is saturated/);
  expect(claimText).toMatch(/No deployment/);
  expect(claimText).toMatch(/untrusted data/);
  const flagged = events.filter((event) => event.kind === "observation.flagged");
  expect(flagged.some((event) => JSON.stringify(event.payload.flags).includes("instruction_like"))).toBe(true);
  expect(events.some((event) => event.kind === "run.status_changed" && event.payload.to === "waiting_approval")).toBe(true);
}

/** `rein run --example sre-triage` with `flags`, exited 0 and its run done: the CLI's output, the run's state and its trace. */
async function exampleRunDone(flags: string[]) {
  const { env, runtime } = setup();
  const run = await rein(["run", "--example", "sre-triage", ...flags], env);
  expect(run.code, run.stderr).toBe(0);
  const runId = runIdOf(run.stdout);
  const state = await runtime.runs.require(runId);
  const events = await runtime.trace.read(runId);
  expect(state.status).toBe("done");
  return { run, state, events };
}

// Each test starts one to three CLI processes that load every package through tsx.
describe("examples/sre-triage from the CLI", { timeout: 120_000 }, () => {
  it("--approve: diagnoses with cited evidence, waits for approval, runs the restart exactly once, ends done", async () => {
    const { state, events } = await exampleRunDone(["--approve"]);
    expectDiagnosisBackedByTrace(state, events);
    expect(executions(events, "restart_service")).toHaveLength(1);
    expect(events.filter((event) => event.kind === "approval.consumed")).toHaveLength(1);
  });

  it("--deny: ends done with the diagnosis, the denial recorded in gaps, and no restart", async () => {
    const { run, state, events } = await exampleRunDone(["--deny", "--reason", "not during peak traffic"]);
    expectDiagnosisBackedByTrace(state, events);
    expect(
      state.result?.answer?.gaps.some((gap) => gap.includes("restart_service was not executed") && gap.includes("not during peak traffic")),
    ).toBe(true);
    expect(executions(events, "restart_service")).toHaveLength(0);
    expect(run.stdout).toMatch(/gap: not done: restart_service was not executed/);
  });

  it("rein approve from another process lets the waiting run's exact restart run once", async () => {
    const { env, runtime } = setup();
    const running = startRein(["run", "--example", "sre-triage"], env);
    const submitted = await new Promise<string>((resolve) => {
      let seen = "";
      running.child.stdout?.on("data", (chunk) => {
        seen += chunk;
        const runId = /run (run_[a-z0-9]+) submitted/.exec(seen)?.[1];
        if (runId) resolve(runId);
      });
    });
    const waiting = await waitForRun(runtime, submitted, (state) => state.status === "waiting_approval");
    const [approvalId] = waiting.pendingApprovals;
    expect(approvalId).toBeDefined();
    const listed = await rein(["approvals", "--run", submitted], env);
    expect(listed.stdout).toContain(`${approvalId}  pending`);
    const approved = await rein(["approve", approvalId as string], env);
    expect(approved.code, approved.stderr).toBe(0);
    const finished = await running.done;
    expect(finished.code, finished.stderr).toBe(0);
    const events = await runtime.trace.read(submitted);
    expect((await runtime.runs.require(submitted)).status).toBe("done");
    expect(executions(events, "restart_service")).toHaveLength(1);
  });
});
