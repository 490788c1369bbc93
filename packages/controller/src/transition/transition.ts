import { errorMessage } from "@rein/contracts";
import { isTerminal, type RunState } from "@rein/contracts/run";
import type { ControlEvent } from "@rein/contracts/messages";
import { countSpend, stopIfOverBudget } from "./budget-prologue.ts";
import { Draft, partialResult } from "./run-draft.ts";
import { hasRunningGroup, settleStatus } from "./join.ts";
import { EVENT_HANDLERS, type EventHandler } from "./events/event-handlers.ts";
import type { EventOf } from "./events/event-of.ts";
import type { Transition, TransitionSettings } from "./transition-types.ts";

export type { Transition, TransitionSettings } from "./transition-types.ts";

/**
 * The controller's whole decision logic: `(state, event) → (state', effects)`.
 * Pure: no I/O, no clock, no randomness, so it can be tested as a table and
 * replayed after a crash with the same result.
 *
 * Total: it never throws. Whatever a model put into an event is either
 * applied, refused as an observation, or ignored; an unexpected exception
 * fails the run with the error instead of leaving the event to be retried
 * and dropped while the run waits for its deadline.
 */
export function transition(state: RunState, event: ControlEvent, settings: TransitionSettings): Transition {
  if (state.appliedEvents.includes(event.eventId)) return ignored(state, event, "duplicate event");
  try {
    return applyEvent(state, event, settings);
  } catch (error) {
    return failedTransition(state, event, settings, error);
  }
}

function applyEvent(state: RunState, event: ControlEvent, settings: TransitionSettings): Transition {
  const draft = new Draft(state, event, settings);
  const counted = countSpend(draft, event);
  const reason = isTerminal(state.status)
    ? `run is already ${state.status}`
    : stopIfOverBudget(draft, event, counted)
      ? undefined
      : apply(draft, event);
  if (reason === undefined) {
    // With steps running side by side, the run's status follows all of them, not the one this event was about.
    if (!isTerminal(draft.state.status) && draft.state.status !== "escalated" && hasRunningGroup(draft.state)) settleStatus(draft);
    return draft.finish();
  }
  if (!counted) return ignored(state, event, reason);
  // The event does not apply, but what its role spent still counts: a fresh draft keeps only the spend.
  const spendOnly = new Draft(state, event, settings);
  countSpend(spendOnly, event);
  spendOnly.trace({ kind: "event.ignored", payload: { event: event.type, eventId: event.eventId, reason } });
  return spendOnly.finish();
}

/** An unexpected exception: the run fails with the error, and the trace says which event caused it. */
function failedTransition(state: RunState, event: ControlEvent, settings: TransitionSettings, error: unknown): Transition {
  const reason = `the controller could not apply ${event.type} event ${event.eventId}: ${errorMessage(error)}`;
  try {
    if (isTerminal(state.status)) return ignored(state, event, reason);
    const draft = new Draft(state, event, { ...settings, now: validDate(settings.now, state.updatedAt) });
    draft.trace({ kind: "transition.failed", payload: { event: event.type, eventId: event.eventId, error: errorMessage(error) } });
    draft.finishRun("failed", partialResult(draft.state, reason), reason, { lesson: false });
    return draft.finish();
  } catch {
    // Even the failure could not be written as a transition; the controller reports the event as failed for good.
    return ignored(state, event, reason);
  }
}

/** A clock that cannot be read is replaced by the state's own last update, so the failure can still be dated. */
const validDate = (now: Date, fallback: string): Date => (Number.isNaN(now.getTime()) ? new Date(fallback) : now);

/** The event's own handler; why it does not apply, or nothing when it did. */
function apply<Kind extends ControlEvent["type"]>(draft: Draft, event: EventOf<Kind>): string | undefined {
  const handler: EventHandler<Kind> = EVENT_HANDLERS[event.type];
  return handler(draft, event);
}

function ignored(state: RunState, event: ControlEvent, reason: string): Transition {
  return {
    state,
    effects: [],
    applied: false,
    trace: [{ runId: state.runId, kind: "event.ignored", payload: { event: event.type, eventId: event.eventId, reason } }],
  };
}
