import { addUsage, type TraceEvent, Usage, zeroUsage } from "@rein/core";

/**
 * Two ways to total a run's spend from its trace. `modelUsageOf` adds up
 * every model call as it happened; `countedUsageOf` adds up what the
 * controller counted against the budget (`usage.counted`). For a run that
 * lost no work to a crash the two agree with each other and with the run
 * state's `usage`; a difference is spend the budget never saw.
 */
export function modelUsageOf(events: readonly TraceEvent[]): Usage {
  return events.filter((event) => event.kind === "model.responded").reduce((total, event) => addUsage(total, event.usage ?? zeroUsage()), zeroUsage());
}

export function countedUsageOf(events: readonly TraceEvent[]): Usage {
  return events
    .filter((event) => event.kind === "usage.counted")
    .reduce((total, event) => {
      const counted = Usage.safeParse(event.payload.usage);
      return counted.success ? addUsage(total, counted.data) : total;
    }, zeroUsage());
}
