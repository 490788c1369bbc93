import type { CallIntent, CallRecord, RecordedOutcome } from "@rein/contracts/calls";

/** A step's owner as a queue names it: a record lands only while this token still owns the step. */
export interface StepOwner {
  runId: string;
  stepId: string;
  token: string;
}

export type BeginOutcome = { begun: true } | { begun: false; existing: CallRecord | undefined };
export type RecordOutcome = { recorded: true } | { recorded: false; existing: CallRecord | undefined };

/**
 * Where the executor records a side-effecting call's intent before it starts
 * and its outcome after (docs/effects.md), keyed by the call's idempotency
 * key. The runtime's IdempotencyStore keeps them in Redis, each write fenced
 * by the step's owner.
 */
export interface IdempotencyLog {
  get(key: string): Promise<CallRecord | undefined>;
  /** Writes the intent only where there is no record yet. */
  begin(key: string, intent: CallIntent, owner?: StepOwner): Promise<BeginOutcome>;
  /** Writes the intent over an earlier one of the same call (a retry attempt starts afresh). */
  restart(key: string, intent: CallIntent, owner?: StepOwner): Promise<void>;
  finish(key: string, intent: CallIntent, outcome: RecordedOutcome, owner?: StepOwner): Promise<RecordOutcome>;
  /** Drops an intent whose call never started. */
  abandon(key: string, intent: CallIntent, owner?: StepOwner): Promise<void>;
}
