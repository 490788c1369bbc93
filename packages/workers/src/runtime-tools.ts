import { z } from "zod";
import { jsonSchemaOf, DelegationRequest, hashOf, JoinRule, newId, type ToolCallRecord } from "@rein/contracts";
import type { ModelToolSchema } from "@rein/contracts/model";
import type { Observation, ToolCallStatus } from "@rein/contracts/calls";
import { describeIssues } from "@rein/models";
import type { ModelToolCall } from "@rein/tools";

/**
 * Two tools the runtime itself answers, never a tool implementation: asking
 * for a child step, and asking the parent for more context. Both suspend the
 * step; the controller and the planner decide what happens.
 */
export const DELEGATE = "delegate";
export const REQUEST_CONTEXT = "request_context";

const DelegateInput = z.object({
  reason: z.string().min(3).describe("why this part should be done by a child step"),
  task: DelegationRequest.describe("the child's task; its tools must be a subset of yours, with scopes no wider"),
  join: JoinRule.optional().describe("for several calls in one turn: all must pass (default), any (first to pass wins) or quorum of n"),
});

const RequestContextInput = z.object({
  question: z.string().min(3).describe("what you need to know that your task does not tell you"),
});

// Built once: converting zod to JSON Schema on every step cost more than the step.
const REQUEST_CONTEXT_SCHEMA: ModelToolSchema = {
  name: REQUEST_CONTEXT,
  description: "Ask the planner for evidence your task did not include. Your step pauses until it answers with evidence ids or a refusal.",
  inputSchema: jsonSchemaOf(RequestContextInput),
};
const DELEGATE_SCHEMA: ModelToolSchema = {
  name: DELEGATE,
  description:
    "Hand part of your task to a child step with a narrower task, a subset of your tools and a part of your budget. Your step pauses until the child finishes; its result comes back as one tool result. Call it several times in one turn to run children side by side.",
  inputSchema: jsonSchemaOf(DelegateInput),
};
const WITH_DELEGATE: readonly ModelToolSchema[] = [REQUEST_CONTEXT_SCHEMA, DELEGATE_SCHEMA];
const WITHOUT_DELEGATE: readonly ModelToolSchema[] = [REQUEST_CONTEXT_SCHEMA];

export function runtimeToolSchemas(options: { canDelegate: boolean }): readonly ModelToolSchema[] {
  return options.canDelegate ? WITH_DELEGATE : WITHOUT_DELEGATE;
}

export type RuntimeRequest =
  | { kind: "delegate"; reason: string; request: DelegationRequest; join?: JoinRule }
  | { kind: "context"; question: string }
  | { kind: "invalid"; message: string };

export function parseRuntimeCall(call: ModelToolCall): RuntimeRequest {
  if (call.name === DELEGATE) {
    const parsed = DelegateInput.safeParse(call.input);
    return parsed.success
      ? { kind: "delegate", reason: parsed.data.reason, request: parsed.data.task, ...(parsed.data.join ? { join: parsed.data.join } : {}) }
      : { kind: "invalid", message: describeIssues(parsed.error) };
  }
  const parsed = RequestContextInput.safeParse(call.input);
  return parsed.success ? { kind: "context", question: parsed.data.question } : { kind: "invalid", message: describeIssues(parsed.error) };
}

export const isRuntimeTool = (name: string): boolean => name === DELEGATE || name === REQUEST_CONTEXT;

/** An observation the runtime makes itself (a child's result, the planner's answer, a refusal). */
export function runtimeObservation(
  call: ModelToolCall,
  index: number,
  content: string,
  status: ToolCallStatus = "ok",
  now: () => Date = () => new Date(),
): { observation: Observation; record: ToolCallRecord } {
  const argsHash = hashOf(call.input ?? {});
  const observation: Observation = {
    id: newId("obs"),
    callId: call.id,
    tool: call.name,
    status,
    content,
    empty: false,
    flags: [],
    provenance: { tool: call.name, argsHash, observedAt: now().toISOString(), cacheHit: false, replayed: false, trust: "runtime" },
  };
  const record: ToolCallRecord = {
    index,
    name: call.name,
    argsHash,
    fingerprint: hashOf({ tool: call.name, args: call.input ?? {} }),
    status,
    resultHash: hashOf(content),
    observationId: observation.id,
    addressed: true,
  };
  return { observation, record };
}
