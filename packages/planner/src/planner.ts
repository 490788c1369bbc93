import { jsonSchemaOf, errorMessage, type LessonRef, Plan, type Usage, ReinError, SequentialPlan } from "@rein/contracts";
import type { PlanJob } from "@rein/contracts/messages";
import type { Redactor } from "@rein/guard";
import { completeStructured, type ModelProvider, type ModelStreamEvent, usageOfFailure } from "@rein/models";
import type { TraceWriter } from "@rein/trace";
import { checkPlan } from "./plan-checks.ts";
import { fanOutInstruction, PLANNER_SYSTEM, renderPlannerContext } from "./planner-prompt.ts";

export interface PlannerDeps {
  /** The job's trace writer (a TraceHold in the plan consumer). */
  trace: TraceWriter;
  /** The provider for the planner role; `job.modelOverride` picks another through this. */
  providerFor: (override?: PlanJob["modelOverride"]) => ModelProvider;
  /** Lessons similar to the goal; none when no lesson memory is configured. */
  lessonsFor?: (goal: string) => Promise<LessonRef[]>;
  maxTokens?: number;
  /** Removes secrets from the outside text the prompt shows (evidence, lessons, summaries). */
  redactor?: Redactor;
  /** The planner's output as it streams, for the run's live channel. */
  onModelEvent?: (event: ModelStreamEvent) => void;
}

export type PlanOutcome = { ok: true; plan: Plan; usage: Usage; lessonsUsed: LessonRef[] } | { ok: false; reason: string; usage: Usage };

// One object for every call: prompt copies recognise it and hash it once per process, not per plan.
// A run that may fan out is offered the `parallel` field; every other run's schema stays as it was.
const PLAN_OUTPUT = { name: "plan", description: "the lazy plan", schema: jsonSchemaOf(SequentialPlan) };
const FAN_OUT_PLAN_OUTPUT = { name: "plan", description: "the lazy plan", schema: jsonSchemaOf(Plan) };

/** Turns the run's digest into a lazy Plan, repairing invalid output at most twice. */
export async function plan(job: PlanJob, deps: PlannerDeps, signal?: AbortSignal): Promise<PlanOutcome> {
  const lessons = deps.lessonsFor ? await deps.lessonsFor(job.context.goal) : [];
  const context = { ...job.context, lessons: [...job.context.lessons, ...lessons] };
  if (lessons.length > 0) {
    await deps.trace.append({ runId: job.runId, kind: "lesson.used", payload: { lessons: lessons.map((lesson) => lesson.id) } });
  }
  const provider = deps.providerFor(job.modelOverride);
  try {
    const result = await completeStructured(
      provider,
      {
        role: "planner",
        system: context.maxParallel ? `${PLANNER_SYSTEM}\n${fanOutInstruction(context.maxParallel)}` : PLANNER_SYSTEM,
        messages: [{ role: "user", content: [{ type: "text", text: renderPlannerContext(context, { redactor: deps.redactor }) }] }],
        output: context.maxParallel ? FAN_OUT_PLAN_OUTPUT : PLAN_OUTPUT,
        maxTokens: deps.maxTokens,
        metadata: { runId: job.runId },
      },
      { trace: deps.trace, runId: job.runId },
      { schema: Plan, check: (value) => checkPlan(value, context), signal, onEvent: deps.onModelEvent },
    );
    return { ok: true, plan: result.value, usage: result.usage, lessonsUsed: lessons };
  } catch (error) {
    // Only the model's own failures end a plan; anything else (Redis, the network) is the queue's to retry.
    if (!ReinError.isInstance(error) || error.retryable) throw error;
    return { ok: false, reason: errorMessage(error), usage: usageOfFailure(error) };
  }
}
