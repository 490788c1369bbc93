import { addUsage, Usage, zeroUsage } from "@rein/contracts";
import type { TypedTraceEvent } from "@rein/trace";

/**
 * Two ways to total a run's spend from its trace. `modelUsageOf` adds up
 * every model call as it happened; `countedUsageOf` adds up what the
 * controller counted against the budget (`usage.counted`). For a run that
 * lost no work to a crash the two agree with each other and with the run
 * state's `usage`; a difference is spend the budget never saw.
 */
export function modelUsageOf(events: readonly TypedTraceEvent[]): Usage {
  return events
    .filter((event) => event.kind === "model.responded")
    .reduce((total, event) => addUsage(total, event.usage ?? zeroUsage()), zeroUsage());
}

export function countedUsageOf(events: readonly TypedTraceEvent[]): Usage {
  return events.reduce(
    (total, event) => (event.kind === "usage.counted" ? addUsage(total, Usage.parse(event.payload.usage)) : total),
    zeroUsage(),
  );
}
