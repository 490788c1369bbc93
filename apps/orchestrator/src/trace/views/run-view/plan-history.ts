import type { TypedTraceEvent } from "@rein/trace";
import type { PlanHistory, PlanRevision, PlanTrigger } from "./run-view-model.ts";

/**
 * The plan as it evolved: each accepted plan, and what made the planner plan
 * again (the event before the plan request: a verdict, a person's
 * instruction, a worker's question).
 */
export class PlanHistoryFold {
  private readonly revisions: PlanRevision[] = [];
  private trigger: { trigger: PlanTrigger; reason: string } = { trigger: "first", reason: "" };

  add(event: TypedTraceEvent): void {
    switch (event.kind) {
      case "verdict.ready": {
        const { decision, reasons, subject } = event.payload;
        const reason = `${decision} on ${subject === "final_answer" ? "the final answer" : (event.stepId ?? "the step")}: ${reasons.join("; ")}`;
        if (subject === "final_answer") this.trigger = { trigger: "answer_rejected", reason };
        else this.trigger = { trigger: decision === "replan" ? "replan" : "after_step", reason };
        break;
      }
      case "run.resumed":
        this.trigger = { trigger: "after_instruction", reason: `a person answered: ${event.payload.instruction}` };
        break;
      case "step.suspended":
        if (event.payload.reason === "context")
          this.trigger = { trigger: "after_context", reason: `${event.stepId ?? "a step"} asked: ${event.payload.question ?? "?"}` };
        break;
      case "plan.ready": {
        const { planNo, done, currentStep, nextSteps, risks, lessonsUsed } = event.payload;
        const first = this.revisions.length === 0;
        this.revisions.push({
          planNo,
          at: event.ts,
          done,
          currentStep,
          nextSteps,
          risks,
          lessonsUsed,
          trigger: first ? "first" : this.trigger.trigger,
          reason: first ? "" : this.trigger.reason,
        });
        break;
      }
    }
  }

  result(): PlanHistory {
    return { current: this.revisions.at(-1) ?? null, revisions: this.revisions };
  }
}
