import { type CallStage, need } from "../call-in-progress.ts";
import { afterInterruptedIntent } from "../outcome-unknown.ts";
import { isRecordedCall } from "../recorded-calls.ts";

/**
 * What an earlier run of this same call left under its key (a step re-run
 * after a crash). An outcome of the same action is replayed, not
 * re-performed, and not re-approved: its approval was consumed when it ran.
 * An intent with no outcome is a call cut off mid-way: an idempotent one
 * (or a read, or one config `tools.repeatSafe` covers) runs again, any
 * other is never silently repeated.
 */
export const findRecorded: CallStage = async (state) => {
  const tool = need(state, "tool");
  const { idempotency } = state.deps;
  if (!idempotency || !isRecordedCall(tool)) return undefined;
  const record = await idempotency.get(state.idempotencyKey);
  if (!record) return undefined;
  if (record.kind === "intent") return afterInterruptedIntent(state, record);
  if (record.fingerprint === state.identity.fingerprint) state.recorded = record;
  return undefined;
};
