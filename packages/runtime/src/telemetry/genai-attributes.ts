import type { Attributes } from "@opentelemetry/api";

/** Attribute names from the OpenTelemetry GenAI semantic conventions; Rein's own go under `rein.`. */
export const GENAI = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  /** The older name for the provider, still read by many backends. */
  system: "gen_ai.system",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  finishReasons: "gen_ai.response.finish_reasons",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  agentName: "gen_ai.agent.name",
  conversationId: "gen_ai.conversation.id",
} as const;

type Payload = Readonly<Record<string, unknown>>;
interface Usage {
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

/*
 * The one mapping from trace events to span names and attributes, used by the
 * live spans every role emits and by `rein trace --otel` for recorded runs.
 */

export const modelSpanName = (p: Payload) => `chat ${String(p.model)}`;

export const modelCallAttributes = (p: Payload): Attributes => ({
  [GENAI.operation]: "chat",
  [GENAI.provider]: String(p.provider),
  [GENAI.system]: String(p.kind ?? p.provider),
  [GENAI.requestModel]: String(p.model),
  "rein.role": String(p.role),
});

export function modelResponseAttributes(p: Payload, usage: Usage | undefined): Attributes {
  const attributes: Attributes = { [GENAI.responseModel]: String(p.model), [GENAI.finishReasons]: [String(p.stopReason)] };
  if (usage)
    Object.assign(attributes, {
      [GENAI.inputTokens]: usage.inputTokens,
      [GENAI.outputTokens]: usage.outputTokens,
      "rein.cost_usd": usage.costUsd,
    });
  return attributes;
}

export const toolSpanName = (p: Payload) => `execute_tool ${String(p.tool)}`;

export const toolCallAttributes = (p: Payload): Attributes => ({
  [GENAI.operation]: "execute_tool",
  [GENAI.toolName]: String(p.tool),
  [GENAI.toolCallId]: String(p.callId),
});

export const permissionAttributes = (p: Payload): Attributes => ({
  "rein.permission.decision": String(p.decision),
  "rein.permission.rule": String(p.rule),
});

/** Keys pairing a call's start with its end among the events of one process. */
export const modelCallKey = (runId: string, stepId: string | null | undefined, p: Payload) => `${runId}|${String(p.role)}|${stepId ?? "-"}`;
export const toolCallKey = (runId: string, stepId: string | null | undefined, p: Payload) =>
  `${runId}|${stepId ?? "-"}|${String(p.callId)}|${String(p.index)}`;
