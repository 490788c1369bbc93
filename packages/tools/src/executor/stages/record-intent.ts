import { randomUUID } from "node:crypto";
import { canonicalJson } from "@rein/contracts";
import { actionHashOf, type CallIntent } from "@rein/contracts/calls";
import { type CallInProgress, type CallStage, need } from "../call-in-progress.ts";
import { interrupted } from "../interrupted.ts";
import { afterInterruptedIntent } from "../outcome-unknown.ts";
import { isRecordedCall, isRepeatable, recordOwner } from "../recorded-calls.ts";

// Arguments larger than this are kept out of the intent; the action hash still names them.
const INTENT_ARGS_LIMIT = 4096;

/**
 * Before a side-effecting call starts, its intent is recorded under the
 * call's key, so that a crash between here and the outcome is never taken
 * for "not started". Another run's record found here instead (it got there
 * first) is handled as find-recorded would. Written only while the step is
 * still this worker's and its run has not ended, else the call throws
 * (`lock_lost`, `run_ended`) having started nothing.
 */
export const recordIntent: CallStage = async (state) => {
  const tool = need(state, "tool");
  const { idempotency } = state.deps;
  if (state.recorded || !idempotency || !isRecordedCall(tool)) return undefined;
  // A worker giving its step back starts nothing new.
  if (state.context.signal.aborted) throw await interrupted(state);
  const intent = intentOf(state);
  const begun = await idempotency.begin(state.idempotencyKey, intent, recordOwner(state.context));
  if (begun.begun) {
    state.intent = intent;
    return undefined;
  }
  const { existing } = begun;
  if (existing?.kind === "intent") {
    const ending = await afterInterruptedIntent(state, existing);
    if (ending) return ending;
    await idempotency.restart(state.idempotencyKey, intent, recordOwner(state.context));
    state.intent = intent;
    return undefined;
  }
  // The same action's outcome is replayed; another action's leaves this call to run unrecorded, as it always has.
  if (existing?.fingerprint === state.identity.fingerprint) state.recorded = existing;
  return undefined;
};

function intentOf(state: CallInProgress): CallIntent {
  const tool = need(state, "tool");
  const { args } = need(state, "input");
  return {
    schemaVersion: 1,
    kind: "intent",
    fingerprint: state.identity.fingerprint,
    actionHash: actionHashOf({ tool: tool.name, args, scope: need(state, "scope") }),
    tool: tool.name,
    args: Buffer.byteLength(canonicalJson(args)) <= INTENT_ARGS_LIMIT ? args : undefined,
    repeatable: isRepeatable(tool),
    startedAt: new Date(state.deps.now()).toISOString(),
    token: randomUUID(),
  };
}
