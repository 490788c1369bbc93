import { type Draft, partialResult } from "../run-draft.ts";
import type { EventOf } from "./event-of.ts";

/** A person cancels the run. */
export function onRunCancel(draft: Draft, event: EventOf<"run.cancel">): string | undefined {
  const { state } = draft;
  draft.finishRun("cancelled", partialResult(state, `cancelled: ${event.reason}`), event.reason);
  return undefined;
}
