import { addUsage, type RunBudget, type Usage, zeroUsage } from "@rein/contracts";
import type { TypedTraceEvent } from "@rein/trace";
import type { UsageLine } from "./run-view-model.ts";

/** Tokens and cost of every model call, per step, per role and in total, with the budget the run was given. */
export class RunUsageFold {
  private readonly byStep = new Map<string, UsageLine>();
  private readonly byRole = new Map<string, UsageLine>();
  private total: Usage = zeroUsage();
  budget: RunBudget | null = null;
  unpriced: string[] = [];

  add(event: TypedTraceEvent): void {
    if (event.kind === "run.submitted") {
      this.budget = event.payload.budget;
      this.unpriced = event.payload.unpriced ?? [];
      return;
    }
    if (event.kind !== "model.responded") return;
    const usage = event.usage ?? zeroUsage();
    this.total = addUsage(this.total, usage);
    count(this.byRole, event.payload.role, usage);
    if (event.stepId) count(this.byStep, event.stepId, usage);
  }

  totalUsage(): Usage {
    return this.total;
  }

  stepLines(): UsageLine[] {
    return [...this.byStep.values()];
  }

  roleLines(): UsageLine[] {
    return [...this.byRole.values()];
  }
}

function count(lines: Map<string, UsageLine>, name: string, usage: Usage): void {
  const line = lines.get(name) ?? { name, usage: zeroUsage(), modelCalls: 0 };
  lines.set(name, { name, usage: addUsage(line.usage, usage), modelCalls: line.modelCalls + 1 });
}
