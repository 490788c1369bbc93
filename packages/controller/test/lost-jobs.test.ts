import { describe, expect, it } from "vitest";
import { FinalAnswer } from "@rein/contracts";
import { transition } from "../src/transition/transition.ts";
import { baseState, event as e, now, result, settings, step } from "@rein/controller/testing";

const lost = (jobs: string[], fields: Record<string, unknown> = {}) =>
  e("jobs.lost", { jobs, cause: "vanished", reason: "not in its queue", ...fields });

describe("jobs.lost", () => {
  it("looks for a step job of a run started under a build in that build's step queue", () => {
    const state = baseState({
      status: "dispatching",
      build: "v1",
      spent: { steps: 1, tokens: 0, costUsd: 0 },
      steps: [step("dispatched")],
    });
    const next = transition(state, lost(["step s1 1 step-run_t-s1-1"], { seenVersion: state.version }), settings);
    const redriven = next.trace.find((event) => event.kind === "run.redriven")?.payload as { jobs: { queue: string }[] } | undefined;
    expect(redriven?.jobs.map((job) => job.queue)).toEqual(["step.v1"]);
  });

  it("sends a lost step job again under the same job id, without counting a new step, and traces run.redriven", () => {
    const state = baseState({
      status: "dispatching",
      spent: { steps: 1, tokens: 0, costUsd: 0 },
      steps: [step("dispatched", { resumes: 1 })],
    });
    const next = transition(state, lost(["step s1 1 step-run_t-s1-1-r1"], { seenVersion: state.version }), settings);
    const effect = next.effects[0];
    if (effect?.type !== "dispatch_step") throw new Error(`expected a dispatch, got ${effect?.type}`);
    expect(effect.jobId).toBe("step-run_t-s1-1-r1");
    expect(effect.body).toMatchObject({ stepId: "s1", attempt: 1 });
    expect(next.state.status).toBe("dispatching");
    expect(next.state.spent.steps).toBe(1);
    expect(next.state.resends).toEqual({ "step-run_t-s1-1-r1": 1 });
    expect(next.trace.find((event) => event.kind === "run.redriven")?.payload).toEqual({
      cause: "vanished",
      reason: "not in its queue",
      jobs: [{ key: "step s1 1 step-run_t-s1-1-r1", queue: "step", jobId: "step-run_t-s1-1-r1", resend: 1 }],
    });
  });

  it("sends the plan job, the planner's question and the final answer's evaluation as the outbox did", () => {
    const planning = transition(baseState({ status: "planning", planCount: 2 }), lost(["plan 2"]), settings);
    expect(planning.effects).toMatchObject([{ type: "enqueue_plan", job: { planNo: 2 } }]);

    const asking = baseState({ status: "executing", steps: [step("suspended", { awaitingContext: "which file?", resumes: 2 })] });
    expect(transition(asking, lost(["context s1 1"]), settings).effects).toMatchObject([
      { type: "enqueue_context_request", job: { stepId: "s1", attempt: 1, resumes: 2, question: "which file?" } },
    ]);

    const answer = FinalAnswer.parse({ answer: "fixed", claims: [], gaps: [] });
    const judging = baseState({ status: "evaluating", proposal: { planNo: 2, attempt: 1, answer, phase: "evaluating" } });
    expect(transition(judging, lost(["final 1"]), settings).effects).toMatchObject([
      { type: "enqueue_evaluate", job: { kind: "final", attempt: 1, answer } },
    ]);
  });

  it("sends a step's evaluation with the result the event carries", () => {
    const state = baseState({ status: "evaluating", steps: [step("evaluating")] });
    const next = transition(state, lost(["evaluate s1 1"], { stepResults: [result("completed")] }), settings);
    expect(next.effects).toMatchObject([{ type: "enqueue_evaluate", job: { kind: "step", stepId: "s1", attempt: 1 } }]);
  });

  it("escalates a step's evaluation whose result is gone with it, saying why and what a person can do", () => {
    const state = baseState({ status: "evaluating", steps: [step("evaluating")] });
    const next = transition(state, lost(["evaluate s1 1"]), settings);
    expect(next.state.status).toBe("escalated");
    expect(next.effects).toEqual([]);
    expect(next.state.steps[0]?.phase).toBe("failed");
    expect(next.state.stopReason).toMatch(
      /evaluation of step s1 \(attempt 1\) was lost: not in its queue; it cannot be sent again.*retention\.jobs.*rein reply run_t/,
    );
  });

  it("schedules a lost deadline for what is left of the run's wall time", () => {
    const createdAt = new Date(now.getTime() - 60_000).toISOString();
    const state = baseState({ status: "executing", createdAt, steps: [step("executing")] });
    const next = transition(state, lost(["deadline"]), settings);
    expect(next.effects).toEqual([{ type: "schedule_deadline", delayMs: state.goal.budget.maxWallMs - 60_000 }]);
  });

  it("escalates a job lost again once it was sent again redrive.resendsPerJob times", () => {
    const key = "step s1 1 step-run_t-s1-1";
    let state = baseState({ status: "dispatching", steps: [step("dispatched")] });
    for (let resend = 1; resend <= settings.resendsPerJob; resend += 1) {
      state = transition(
        state,
        { ...lost([key], { cause: "worker_lost", reason: "its worker died" }), eventId: `lost-${resend}` },
        settings,
      ).state;
      expect(state.resends).toEqual({ "step-run_t-s1-1": resend });
    }
    const next = transition(state, { ...lost([key], { cause: "worker_lost", reason: "its worker died" }), eventId: "lost-last" }, settings);
    expect(next.state.status).toBe("escalated");
    expect(next.effects).toEqual([]);
    expect(next.state.stopReason).toMatch(
      /job of step s1 \(attempt 1\) was lost: its worker died; it was sent again 2 time\(s\) before.*redrive\.resendsPerJob.*step worker processes' logs.*rein reply/,
    );
  });

  it("ignores a job the run no longer waits for, and a sweep's report from an older version of the run", () => {
    const evaluating = baseState({ status: "evaluating", steps: [step("evaluating")] });
    expect(transition(evaluating, lost(["step s1 1 step-run_t-s1-1"]), settings).trace[0]?.payload).toMatchObject({
      reason: "none of the jobs reported lost is awaited any more",
    });
    const dispatching = baseState({ status: "dispatching", steps: [step("dispatched")] });
    const stale = transition(dispatching, lost(["step s1 1 step-run_t-s1-1"], { seenVersion: dispatching.version - 1 }), settings);
    expect(stale.applied).toBe(false);
    expect(stale.trace[0]?.payload).toMatchObject({ reason: expect.stringMatching(/changed since version 2/) });
  });
});
