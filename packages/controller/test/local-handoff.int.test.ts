import { afterEach, describe, expect, it } from "vitest";
import { ApprovalVerifier, generateKeyPair, generatePacketKeys } from "@rein/signing";
import { type ModelProvider, ScriptedProvider } from "@rein/models";
import { ReinError } from "@rein/contracts";
import { until } from "@rein/contracts/testing";
import type { RunState } from "@rein/contracts/run";
import { createRuntime, jobIds, type ReinRuntime, resultEventIds } from "@rein/runtime";
import { commandsSent, createTestRuntime, type SentCommand, type TestRuntime, waitForRun } from "@rein/runtime/testing";
import { sweepLostJobs } from "../src/control/redrive-sweep.ts";
import { buildTooling } from "../src/roles/tooling.ts";
import { type RunningRoles, startRoles } from "../src/roles/start-roles.ts";
import { submitGoal } from "../src/intake/submit-goal.ts";
import { oneStepScript } from "./one-step-script.ts";

/** The scripted planner, whose second call waits for `release` and may fail once first. */
class SecondPlanGate implements ModelProvider {
  readonly name = "gated";
  readonly kind = "scripted";
  readonly model = "scripted";
  readonly #inner = new ScriptedProvider(oneStepScript);
  #calls = 0;
  #release!: () => void;
  readonly released = new Promise<void>((resolve) => {
    this.#release = resolve;
  });
  /** Resolves once the second plan's model call has begun. */
  readonly secondBegun: Promise<void>;
  #begun!: () => void;

  constructor(private readonly failSecondOnce = false) {
    this.secondBegun = new Promise((resolve) => {
      this.#begun = resolve;
    });
  }

  release(): void {
    this.#release();
  }

  async complete(...args: Parameters<ModelProvider["complete"]>): ReturnType<ModelProvider["complete"]> {
    this.#calls += 1;
    if (this.#calls === 2) {
      this.#begun();
      if (this.failSecondOnce) throw new ReinError("model_error", "the provider is overloaded (529)", { retryable: true });
      await this.released;
    }
    return this.#inner.complete(...args);
  }
}

// Issue 32: where plan and evaluate share a process, the plan and final evaluation a verdict asks for run there, not through their queues.
describe("the in-process hand-off between plan and evaluate", { timeout: 60_000 }, () => {
  let runtime: TestRuntime;
  const opened: ReinRuntime[] = [];
  const running: RunningRoles[] = [];
  const gates: SecondPlanGate[] = [];
  afterEach(async () => {
    // A failed assertion must not leave a plan waiting on its gate through the roles' close.
    for (const gate of gates.splice(0)) gate.release();
    for (const roles of running.splice(0)) await roles.close(0);
    for (const role of opened.splice(0)) await role.close();
    await runtime?.cleanup();
  });

  const roleRuntime = (): ReinRuntime => {
    const role = createRuntime(runtime.config);
    opened.push(role);
    return role;
  };

  /** Control, plan + evaluate, and step, each in a runtime of its own; the re-drive loop off, so only the test sweeps. */
  const deploy = async (
    planner: ModelProvider | SecondPlanGate,
  ): Promise<{ submit(): Promise<string>; controller: ReinRuntime; planEvaluate: ReinRuntime }> => {
    if (planner instanceof SecondPlanGate) gates.push(planner);
    runtime = await createTestRuntime({ redrive: { enabled: false } });
    const keys = generatePacketKeys();
    const controller = roleRuntime();
    const stepRuntime = roleRuntime();
    const planEvaluate = roleRuntime();
    const tooling = await buildTooling(stepRuntime, [], new ApprovalVerifier(generateKeyPair().publicKey));
    running.push(
      startRoles(controller, { roles: ["control"], packetPrivateKey: keys.privateKey }),
      startRoles(planEvaluate, {
        roles: ["plan", "evaluate"],
        packetPrivateKey: keys.privateKey,
        providers: { planner, judge: new ScriptedProvider({}) },
      }),
      startRoles(stepRuntime, {
        roles: ["step"],
        packetPublicKey: keys.publicKey,
        executor: tooling.executor,
        providers: { worker: new ScriptedProvider(oneStepScript) },
      }),
      { workers: [], close: () => tooling.close() },
    );
    return {
      controller,
      planEvaluate,
      submit: async () => (await submitGoal(runtime, { text: "Is there anything to do?", kind: "question" }, { knownTools: [] })).runId,
    };
  };
  const ended = (state: RunState) => state.status === "done" || state.status === "failed" || state.status === "escalated";
  const jobIdsOf = async (queue: "plan" | "evaluate") =>
    (await runtime.queues[queue].getJobs(["completed", "delayed", "waiting", "active", "failed"])).map((job) => job.id).sort();

  it("runs the step's evaluation, the second plan and the final evaluation in place: one plan job and the step's result job, the trace as through the queues", async () => {
    const { submit } = await deploy(new ScriptedProvider(oneStepScript));
    const runId = await submit();
    const state = await waitForRun(runtime, runId, ended);
    expect(state.status, state.stopReason).toBe("done");
    expect(await jobIdsOf("plan")).toEqual([jobIds.plan(runId, 1)]);
    // The step's result job, which the run ended inside, completes just after the run's retirement, which could not
    // remove it while it ran: it goes as it completes, with the step's whole result it carries, and no other was queued.
    const ending = jobIds.stepResult(resultEventIds.stepFinished(jobIds.step(runId, "s1", 1)));
    await until("the step result's job the run ended in completes", async () =>
      (await runtime.queues.evaluate.getJobs(["active"])).every((job) => job.id !== ending),
    );
    expect(await jobIdsOf("evaluate")).toEqual([]);
    const kinds = (await runtime.trace.read(runId))
      .map((event) => event.kind)
      .filter((kind) => kind === "plan.ready" || kind === "verdict.ready" || kind === "run.done");
    expect(kinds).toEqual(["plan.ready", "verdict.ready", "plan.ready", "verdict.ready", "run.done"]);
  });

  /** A one-step run through to `done`, and the commands the plan-and-evaluate process sent meanwhile. */
  const oneStepRunSent = async (): Promise<{ runId: string; sent: SentCommand[] }> => {
    const { submit, planEvaluate } = await deploy(new ScriptedProvider(oneStepScript));
    let runId = "";
    const sent = await commandsSent(planEvaluate.redis, async () => {
      runId = await submit();
      const state = await waitForRun(runtime, runId, ended);
      expect(state.status, state.stopReason).toBe("done");
    });
    return { runId, sent };
  };

  it("reads a run at intake only for the jobs that came through a queue: a handed job was asked for by the write it follows", async () => {
    const { runId, sent } = await oneStepRunSent();
    const intakeReads = sent
      .filter((command) => command.name === "hmget" && command.args.includes("awaiting"))
      .map((command) => command.args[0]);
    // The first plan came through the plan queue; the step's evaluation, the second plan and the final evaluation were handed over.
    expect(intakeReads).toEqual([runtime.keys.run(runId)]);
  });

  it("takes each hand-off's lease in the write that asks for the job, not in a command of its own", async () => {
    const { runId, sent } = await oneStepRunSent();
    const leaseCommands = sent
      .map((command) => ({ name: command.name, leases: command.args.filter((arg) => arg.includes(":handoff:")).length }))
      .filter((command) => command.leases > 0)
      .map((command) => `${command.name} ${command.leases}`);
    // The step's evaluation, the second plan and the final evaluation: each lease rode in the compare-and-set that asked for its job.
    expect(leaseCommands).toEqual(["evalsha 1", "evalsha 1", "evalsha 1"]);
    for (const jobId of [jobIds.evaluate(runId, "s1", 1), jobIds.plan(runId, 2), jobIds.evaluate(runId, "final", 1)]) {
      expect(await runtime.redis.exists(runtime.keys.handoffLease(runId, jobId)), jobId).toBe(1);
    }
  });

  it("holds a lease the re-drive sweep honours while a handed plan is slower than redrive.quietMs", async () => {
    const planner = new SecondPlanGate();
    const { submit, controller } = await deploy(planner);
    const runId = await submit();
    await planner.secondBegun;
    const later = Date.now() + runtime.config.redrive.quietMs + 60_000;
    const sweep = await sweepLostJobs(controller, { holder: "test", now: later });
    expect(sweep).toEqual({ swept: true, checked: 1, lost: [] });
    expect(await runtime.redis.exists(runtime.keys.handoffLease(runId, jobIds.plan(runId, 2)))).toBe(1);
    planner.release();
    const state = await waitForRun(runtime, runId, ended);
    expect(state.status, state.stopReason).toBe("done");
    // The finished handed job's lease is not deleted, which would cost a round trip per hand-off: it stands for the
    // finished job until it expires, within the lease's length, and the sweep finds nothing lost meanwhile.
    const leaseLeft = await runtime.redis.pttl(runtime.keys.handoffLease(runId, jobIds.plan(runId, 2)));
    expect(leaseLeft).toBeGreaterThan(0);
    expect(leaseLeft).toBeLessThanOrEqual(runtime.config.queues.lockMs);
    expect(await jobIdsOf("plan")).toEqual([jobIds.plan(runId, 1)]);
  });

  it("leaves a handed plan whose lease is gone (its holder dead) to the sweep, which has it sent again; the run still ends once", async () => {
    const planner = new SecondPlanGate();
    const { submit, controller } = await deploy(planner);
    const runId = await submit();
    await planner.secondBegun;
    // What a dead holder leaves once its lease expired: the job neither queued nor held.
    await runtime.redis.del(runtime.keys.handoffLease(runId, jobIds.plan(runId, 2)));
    const sweep = await sweepLostJobs(controller, { holder: "test", now: Date.now() + runtime.config.redrive.quietMs + 60_000 });
    expect(sweep.lost).toEqual([{ runId, jobs: ["plan 2"] }]);
    // The controller re-sends the job only while the run stands where the sweep saw it: the handed plan waits until then.
    await until("the lost plan to be sent to its queue again", async () => (await jobIdsOf("plan")).includes(jobIds.plan(runId, 2)));
    planner.release();
    const state = await waitForRun(runtime, runId, ended);
    expect(state.status, state.stopReason).toBe("done");
    expect(await jobIdsOf("plan")).toEqual([jobIds.plan(runId, 1), jobIds.plan(runId, 2)].sort());
    const plans = (await runtime.trace.read(runId)).filter((event) => event.kind === "plan.ready");
    expect(plans).toHaveLength(2);
  });

  it("has the sweep send a lost evaluation again with the result kept by the step's result job on the evaluate queue", async () => {
    const { submit, controller } = await deploy(new ScriptedProvider(oneStepScript));
    await runtime.queues.evaluate.pause();
    const runId = await submit();
    const finished = resultEventIds.stepFinished(jobIds.step(runId, "s1", 1));
    const resultJob = await until(
      "the step's result to wait on the evaluate queue",
      async () => (await runtime.queues.evaluate.getJobState(jobIds.stepResult(finished))) === "waiting",
    ).then(() => runtime.queues.evaluate.getJob(jobIds.stepResult(finished)));
    // Applied elsewhere (the controller, as for an evaluator without the packet key), its evaluation queued, then lost,
    // and the control queue's copy of the result gone: only the result job can give the evaluation its result.
    await runtime.queues.sendControl(resultJob?.data);
    const evaluation = jobIds.evaluate(runId, "s1", 1);
    await until("the evaluation to wait in its queue", async () => (await runtime.queues.evaluate.getJobState(evaluation)) === "waiting");
    await (await runtime.queues.evaluate.getJob(evaluation))?.remove();
    await runtime.queues.control.remove(jobIds.control(finished));

    const sweep = await sweepLostJobs(controller, { holder: "test", now: Date.now() + runtime.config.redrive.quietMs + 60_000 });
    expect(sweep.lost).toEqual([{ runId, jobs: ["evaluate s1 1"] }]);
    await until("the lost evaluation to be sent again", async () => (await runtime.queues.evaluate.getJobState(evaluation)) === "waiting");
    expect((await runtime.queues.evaluate.getJob(evaluation))?.data.result).toEqual(resultJob?.data.result);
    await runtime.queues.evaluate.resume();
    const state = await waitForRun(runtime, runId, ended);
    expect(state.status, state.stopReason).toBe("done");
    const redriven = (await runtime.trace.read(runId)).filter((event) => event.kind === "run.redriven");
    expect(redriven.map((event) => event.payload)).toEqual([expect.objectContaining({ cause: "vanished" })]);
  });

  it("sends a handed plan that fails with a retryable error to its queue, where it is tried again", async () => {
    const { submit } = await deploy(new SecondPlanGate(true));
    const runId = await submit();
    const state = await waitForRun(runtime, runId, ended);
    expect(state.status, state.stopReason).toBe("done");
    expect(await jobIdsOf("plan")).toEqual([jobIds.plan(runId, 1), jobIds.plan(runId, 2)].sort());
  });
});
