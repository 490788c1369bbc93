import { type CallStage, need } from "../call-in-progress.ts";

/**
 * A non-idempotent call that already ran under this key (a step re-run after
 * a crash) is replayed, not re-performed, and not re-approved: its approval
 * was consumed when it ran.
 */
export const findRecorded: CallStage = async (state) => {
  const tool = need(state, "tool");
  const { idempotency } = state.deps;
  if (tool.idempotent || !idempotency) return undefined;
  const recorded = await idempotency.get(state.idempotencyKey);
  if (recorded?.fingerprint === state.identity.fingerprint) state.recorded = recorded;
  return undefined;
};
