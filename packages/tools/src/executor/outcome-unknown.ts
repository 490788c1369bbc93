import { canonicalJson } from "@rein/contracts";
import type { CallIntent } from "@rein/contracts/calls";
import type { CallInProgress } from "./call-in-progress.ts";
import type { CallEnding } from "./call-end-records.ts";
import { repeatSafeRuleOf } from "./repeat-safe.ts";

/** How much of the interrupted call's arguments the observation (and so the person who is asked) sees. */
const SHOWN_ARGS_CHARS = 1000;

export const OUTCOME_UNKNOWN = "outcome unknown after a crash";

/**
 * What a call does about an intent with no outcome under its key (a crash
 * cut an earlier run of it off mid-way): an idempotent call or a read runs
 * again; so does one a deployment rule declares safe to repeat (config
 * `tools.repeatSafe`), traced once as `tool.repeated`; any other ends as
 * outcome unknown.
 */
export async function afterInterruptedIntent(state: CallInProgress, intent: CallIntent): Promise<CallEnding | undefined> {
  if (intent.repeatable) return undefined;
  const rule = repeatSafeRuleOf(state.deps.config.tools?.repeatSafe ?? [], intent);
  if (rule === undefined) return outcomeUnknown(state, intent);
  if (state.repeating) return undefined;
  state.repeating = true;
  await state.trace.emit("tool.repeated", {
    idempotencyKey: state.idempotencyKey,
    startedAt: intent.startedAt,
    actionHash: intent.actionHash,
    action: describeAction(state, intent),
    rule: `tools.repeatSafe[${rule}]`,
  });
  return undefined;
}

/**
 * A side-effecting call that is not idempotent started earlier under this
 * key and never recorded how it ended: its effect may or may not have
 * happened. It is not run again; the step is told so, with the action, and
 * the evaluator's policy takes it from there (by default: ask a person).
 */
export async function outcomeUnknown(state: CallInProgress, intent: CallIntent): Promise<CallEnding> {
  const action = describeAction(state, intent);
  await state.trace.emit("tool.outcome_unknown", {
    idempotencyKey: state.idempotencyKey,
    startedAt: intent.startedAt,
    actionHash: intent.actionHash,
    action,
  });
  return {
    status: "outcome_unknown",
    trust: "runtime",
    failure: "fatal",
    message: `${OUTCOME_UNKNOWN}: ${action}`,
    // The first line names the action on its own: the evaluator quotes it to the person it asks.
    content: `${OUTCOME_UNKNOWN}: ${action}\nThe call started at ${intent.startedAt} and was cut off before it recorded how it ended, so its effect may or may not have happened. The runtime did not run it again because ${intent.tool} is not idempotent. Do not repeat it; report it so a person can check what happened.`,
  };
}

function describeAction(state: CallInProgress, intent: CallIntent): string {
  if (intent.args === undefined) return `${intent.tool} (action ${intent.actionHash})`;
  const json = canonicalJson(intent.args);
  const redacted = state.deps.redactor ? state.deps.redactor.redact(json).text : json;
  return `${intent.tool} ${redacted.length > SHOWN_ARGS_CHARS ? `${redacted.slice(0, SHOWN_ARGS_CHARS)}…` : redacted}`;
}
