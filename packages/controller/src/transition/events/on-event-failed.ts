import { type Draft, partialResult } from "../run-draft.ts";
import type { EventOf } from "./event-of.ts";

/** A consumer gave up on an event for good: the run fails, naming it. */
export function onEventFailed(draft: Draft, event: EventOf<"event.failed">): string | undefined {
  const { state } = draft;
  const reason = `the controller could not apply ${event.failedEventType} event ${event.failedEventId}: ${event.reason}`;
  draft.finishRun("failed", partialResult(state, reason), reason);
  return undefined;
}
