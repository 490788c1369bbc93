import type { ResumeInput, Suspension } from "@rein/contracts";
import type { ModelToolCall } from "@rein/tools";
import { DELEGATE, parseRuntimeCall } from "../runtime-tools.ts";

type DelegateSuspension = Extract<Suspension, { kind: "delegate" }>;

/**
 * The children a turn asks for at once: the `delegate` call the step
 * suspends on and the valid `delegate` calls right after it, each with the
 * call index it will be answered at (one record per answered call, in
 * order). The controller runs them side by side and answers them together.
 */
export function delegateGroupOf(first: DelegateSuspension, following: readonly ModelToolCall[]): DelegateSuspension {
  const more: NonNullable<DelegateSuspension["more"]> = [];
  for (const call of following) {
    if (call.name !== DELEGATE) break;
    const request = parseRuntimeCall(call);
    if (request.kind !== "delegate") break;
    const join = request.join ? { join: request.join } : {};
    more.push({ reason: request.reason, request: request.request, callIndex: first.callIndex + 1 + more.length, ...join });
  }
  return more.length > 0 ? { ...first, more } : first;
}

/** The part of a resume that answers the call at `index`: one child of several, or the one answer it carries. */
export function resumeFor(resume: ResumeInput | undefined, index: number) {
  if (resume?.kind === "delegations") return resume.children.find((child) => child.callIndex === index);
  return resume && "callIndex" in resume && resume.callIndex === index ? resume : undefined;
}
