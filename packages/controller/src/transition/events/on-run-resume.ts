import type { Draft } from "../run-draft.ts";
import { abandonRunningGroups } from "../join.ts";
import type { EventOf } from "./event-of.ts";

/** A person's instruction to an escalated run: planning starts again with it. */
export function onRunResume(draft: Draft, event: EventOf<"run.resume">): string | undefined {
  const { state } = draft;
  if (state.status !== "escalated") return `only an escalated run can be resumed; this one is ${state.status}`;
  state.instruction = event.instruction;
  draft.trace({ kind: "run.resumed", payload: { instruction: event.instruction } });
  abandonRunningGroups(draft);
  draft.requestPlan();
  return undefined;
}
