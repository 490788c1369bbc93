import type { FakeReply } from "../fake-model-server.ts";
import { sseFrame, streamPieces, halves } from "../wire-reply.ts";
import type { PlannedReply } from "./planned-reply.ts";
import type { ReasoningSeal } from "./reasoning-seal.ts";
import type { IssuedCall } from "./responses-input.ts";
import type { ResponsesCall } from "./responses-request.ts";

/** Usage as `ResponseUsage` spells it (SDK `resources/responses/responses.ts`). */
export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: {
    cached_tokens: number;
    cache_write_tokens: number;
    cache_write_tokens_details: { ttl_30m_tokens: number; ttl_12h_tokens: number };
  };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

type Item = Record<string, unknown> & { id: string; type: string };

/**
 * Spells a planned reply as the Responses API does: output items with ids
 * (`rs_`, `msg_`, `fc_`), reasoning items sealed with their model and
 * summary (encrypted content only when `include` asked for it), function
 * calls remembered by call id with the reasoning item before them, and a
 * response that is `completed`, or `incomplete` with
 * `incomplete_details.reason: "max_output_tokens"` and its last item
 * `incomplete`. Streamed, it is the documented event sequence
 * (https://developers.openai.com/api/reference/resources/responses/streaming-events):
 * `response.created`, `response.in_progress`, per item
 * `response.output_item.added`, its deltas and `response.output_item.done`,
 * then `response.completed` or `response.incomplete` with usage.
 */
export function responsesReply(
  call: ResponsesCall,
  planned: PlannedReply,
  usage: ResponsesUsage,
  context: { responseId: string; seal: ReasoningSeal; issued: Map<string, IssuedCall>; nextId: (prefix: string) => string },
): FakeReply {
  let reasoningId: string | undefined;
  const output: Item[] = planned.items.map((planItem, index) => {
    const status = planned.incomplete && index === planned.items.length - 1 ? "incomplete" : "completed";
    if (planItem.kind === "reasoning") {
      const id = context.nextId("rs");
      reasoningId = id;
      const summary = planItem.summary.map((text) => ({ type: "summary_text", text }));
      const sealed = context.seal.seal(id, { model: call.model.id, summary: planItem.summary });
      return { id, type: "reasoning", summary, ...(call.encryptedReasoning ? { encrypted_content: sealed } : {}) };
    }
    if (planItem.kind === "call") {
      const id = context.nextId("fc");
      context.issued.set(planItem.callId, { itemId: id, model: call.model.id, ...(reasoningId ? { reasoningId } : {}) });
      return { id, type: "function_call", status, call_id: planItem.callId, name: planItem.name, arguments: planItem.arguments };
    }
    const part =
      planItem.kind === "refusal"
        ? { type: "refusal", refusal: planItem.text }
        : { type: "output_text", text: planItem.text, annotations: [], logprobs: [] };
    return { id: context.nextId("msg"), type: "message", status, role: "assistant", content: [part] };
  });
  const response = (state: "in_progress" | "final") => ({
    id: context.responseId,
    object: "response",
    created_at: 1_796_000_000,
    status: state === "in_progress" ? "in_progress" : planned.incomplete ? "incomplete" : "completed",
    error: null,
    incomplete_details: state === "final" && planned.incomplete ? { reason: "max_output_tokens" } : null,
    instructions: call.view.instructions || null,
    max_output_tokens: call.view.maxOutputTokens ?? null,
    model: call.model.id,
    output: state === "in_progress" ? [] : output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: call.effort ? { effort: call.effort, summary: call.summaries ? "detailed" : null } : null,
    store: call.stored,
    temperature: null,
    text: {
      format: call.view.output ? { type: "json_schema", name: call.view.output.name, strict: call.view.output.strict } : { type: "text" },
    },
    tool_choice: "auto",
    tools: [],
    top_p: null,
    truncation: "disabled",
    usage: state === "in_progress" ? null : usage,
    metadata: {},
  });
  const headers = { "x-request-id": `req_${context.responseId}` };
  if (!call.view.stream) return { status: 200, json: response("final"), headers };
  return { sse: events(output, response).join(""), headers };
}

function events(output: Item[], response: (state: "in_progress" | "final") => Record<string, unknown>): string[] {
  let sequence = 0;
  const frames: string[] = [];
  const emit = (type: string, fields: Record<string, unknown>) =>
    frames.push(sseFrame({ type, sequence_number: sequence++, ...fields }, type));
  emit("response.created", { response: response("in_progress") });
  emit("response.in_progress", { response: response("in_progress") });
  output.forEach((item, output_index) => {
    const at = { item_id: item.id, output_index };
    if (item.type === "reasoning") {
      // The encrypted content of an added item may be incomplete; clients take it from output_item.done.
      emit("response.output_item.added", { output_index, item: { id: item.id, type: "reasoning", summary: [], encrypted_content: null } });
      (item.summary as { text: string }[]).forEach(({ text }, summary_index) => {
        emit("response.reasoning_summary_part.added", { ...at, summary_index, part: { type: "summary_text", text: "" } });
        for (const delta of streamPieces(text))
          emit("response.reasoning_summary_text.delta", { ...at, summary_index, delta, obfuscation: "x" });
        emit("response.reasoning_summary_text.done", { ...at, summary_index, text });
        emit("response.reasoning_summary_part.done", { ...at, summary_index, part: { type: "summary_text", text } });
      });
    } else if (item.type === "function_call") {
      emit("response.output_item.added", { output_index, item: { ...item, status: "in_progress", arguments: "" } });
      for (const delta of halves(String(item.arguments)))
        emit("response.function_call_arguments.delta", { ...at, delta, obfuscation: "x" });
      if (item.status === "completed") emit("response.function_call_arguments.done", { ...at, name: item.name, arguments: item.arguments });
    } else {
      const [part] = item.content as Record<string, unknown>[];
      emit("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } });
      const refusal = part?.type === "refusal";
      const text = String((refusal ? part?.refusal : part?.text) ?? "");
      const empty = refusal ? { type: "refusal", refusal: "" } : { type: "output_text", text: "", annotations: [], logprobs: [] };
      emit("response.content_part.added", { ...at, content_index: 0, part: empty });
      for (const delta of streamPieces(text)) {
        emit(refusal ? "response.refusal.delta" : "response.output_text.delta", {
          ...at,
          content_index: 0,
          delta,
          ...(refusal ? {} : { logprobs: [], obfuscation: "x" }),
        });
      }
      emit(refusal ? "response.refusal.done" : "response.output_text.done", {
        ...at,
        content_index: 0,
        ...(refusal ? { refusal: text } : { text, logprobs: [] }),
      });
      emit("response.content_part.done", { ...at, content_index: 0, part });
    }
    emit("response.output_item.done", { output_index, item });
  });
  const final = response("final");
  emit(final.status === "incomplete" ? "response.incomplete" : "response.completed", { response: final });
  return frames;
}
