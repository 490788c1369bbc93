import { describe, expectTypeOf, it } from "vitest";
import type { CheckpointStore, RunEndWatch, RunStore } from "@rein/runtime";
import type { startEvaluateConsumer } from "@rein/evaluator";
import type { startPlanConsumer } from "@rein/planner";
import type { startStepConsumer } from "@rein/workers";
import type { startController } from "@rein/controller";

type PlannerGets = Parameters<typeof startPlanConsumer>[0];
type EvaluatorGets = Parameters<typeof startEvaluateConsumer>[0]["runtime"];
type StepWorkerGets = Parameters<typeof startStepConsumer>[0]["runtime"];
type ControllerGets = Parameters<typeof startController>[0]["runtime"];

// Type-level: these fail `typecheck` (tests are typechecked), not the test run, when a role is handed a store it must not write.
describe("what each role is handed of the runtime", () => {
  it("gives only the controller the run store: no other role can write run state", () => {
    expectTypeOf<PlannerGets>().not.toHaveProperty("runs");
    expectTypeOf<EvaluatorGets>().not.toHaveProperty("runs");
    expectTypeOf<StepWorkerGets>().not.toHaveProperty("runs");
    expectTypeOf<ControllerGets>().toHaveProperty("runs").toEqualTypeOf<RunStore>();
  });

  it("lets the planner, the evaluator and the step worker read a run's state from Redis, never write it", () => {
    expectTypeOf<PlannerGets["redis"]>().toHaveProperty("hget");
    expectTypeOf<PlannerGets["redis"]>().not.toHaveProperty("hset");
    expectTypeOf<EvaluatorGets["redis"]>().not.toHaveProperty("hset");
    expectTypeOf<StepWorkerGets["redis"]>().toHaveProperty("hget");
    expectTypeOf<StepWorkerGets["redis"]>().not.toHaveProperty("hset");
  });

  it("hands the step worker its checkpoints and the run-end watch, not a Redis client to build them on", () => {
    expectTypeOf<StepWorkerGets>().toHaveProperty("checkpoints").toEqualTypeOf<CheckpointStore>();
    expectTypeOf<StepWorkerGets>().toHaveProperty("runEnds").toEqualTypeOf<RunEndWatch>();
  });

  it("refuses a role's code that reaches for a run store write", () => {
    const planner = (runtime: PlannerGets) =>
      // @ts-expect-error the planner's runtime has no run store
      runtime.runs.save;
    const worker = (runtime: StepWorkerGets) =>
      // @ts-expect-error the step worker's runtime has no run store
      runtime.runs.save;
    const workerWrite = (runtime: StepWorkerGets) =>
      // @ts-expect-error the step worker's Redis cannot write a run's hash
      runtime.redis.hset;
    const workerScript = (runtime: StepWorkerGets) =>
      // @ts-expect-error nor run a script that would
      runtime.redis.eval;
    const workerTransaction = (runtime: StepWorkerGets) =>
      // @ts-expect-error nor open a transaction
      runtime.redis.multi;
    const workerClient = (runtime: StepWorkerGets) =>
      // @ts-expect-error nor make itself a client of its own
      runtime.redis.duplicate;
    expectTypeOf(planner).toBeFunction();
    expectTypeOf(worker).toBeFunction();
    expectTypeOf(workerWrite).toBeFunction();
    expectTypeOf(workerScript).toBeFunction();
    expectTypeOf(workerTransaction).toBeFunction();
    expectTypeOf(workerClient).toBeFunction();
  });
});
