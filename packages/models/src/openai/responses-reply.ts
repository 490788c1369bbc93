import type { Response, ResponseUsage } from "openai/resources/responses/responses";
import type { Usage } from "@rein/contracts";
import type { ContentBlock, StopReason } from "../model-provider.ts";
import { toolCallBlock } from "../tool-arguments.ts";

/** What a finished response says, in neutral terms. */
export interface ReadResponse {
  content: ContentBlock[];
  stopReason: StopReason;
  usage: Usage;
  /** The 12-hour part of the cache writes, priced apart. */
  longCacheWriteTokens: number;
  /** The messages' text, where structured output is read from. */
  text: string;
  model: string;
}

/**
 * Reads a response's output items in order: a reasoning item becomes a
 * `thinking` block (its summary parts joined by a blank line as the text,
 * its encrypted content as the signature, made by `model` over Responses),
 * a message its text (a refusal's too, stopping with `refusal`), a function
 * call a `tool_call` by `call_id`. A call the response left `incomplete`
 * (cut by `max_output_tokens`) is never executable, whatever its arguments.
 */
export function readResponse(
  response: Pick<Response, "output" | "status" | "incomplete_details" | "usage" | "model">,
  model: string,
): ReadResponse {
  const content: ContentBlock[] = [];
  let text = "";
  let refused = false;
  let calls = 0;
  const cut = response.status === "incomplete";
  for (const item of response.output ?? []) {
    if (item.type === "reasoning") {
      const summary = item.summary.map((part) => part.text);
      content.push({
        type: "thinking",
        text: summary.join("\n\n"),
        signature: item.encrypted_content ?? "",
        producer: { api: "openai-responses", model },
        item: { id: item.id, summary },
      });
    } else if (item.type === "message") {
      for (const part of item.content) {
        if (part.type === "output_text" && part.text) {
          text += part.text;
          content.push({ type: "text", text: part.text });
        } else if (part.type === "refusal" && part.refusal) {
          refused = true;
          content.push({ type: "text", text: part.refusal });
        }
      }
    } else if (item.type === "function_call") {
      const unfinished = item.status === "incomplete" || (cut && item.status !== "completed");
      const block = toolCallBlock(item.call_id, item.name, item.arguments, {
        ...(unfinished ? { cutReason: "max_tokens" } : {}),
        invalidReason: cut ? "max_tokens" : "invalid_json",
      });
      if (!block.incomplete) calls += 1;
      content.push(block);
    }
  }
  const { usage, longCacheWriteTokens } = mapResponsesUsage(response.usage);
  return { content, stopReason: stopReasonOf(response, refused, calls), usage, longCacheWriteTokens, text, model: response.model ?? "" };
}

function stopReasonOf(response: Pick<Response, "status" | "incomplete_details">, refused: boolean, calls: number): StopReason {
  if (response.status === "incomplete") {
    const reason = response.incomplete_details?.reason;
    return reason === "max_output_tokens" ? "max_tokens" : reason === "content_filter" ? "refusal" : "other";
  }
  if (refused) return "refusal";
  return calls > 0 ? "tool_use" : "end_turn";
}

/**
 * `input_tokens` counts every input token, read from the cache or written
 * to it included; Rein counts each once, so uncached input is what is
 * left. Writes kept for 12 hours are reported apart: they cost more.
 */
export function mapResponsesUsage(usage: ResponseUsage | null | undefined): { usage: Usage; longCacheWriteTokens: number } {
  const details = usage?.input_tokens_details;
  const cached = details?.cached_tokens ?? 0;
  const written = details?.cache_write_tokens ?? 0;
  return {
    usage: {
      inputTokens: Math.max(0, (usage?.input_tokens ?? 0) - cached - written),
      outputTokens: usage?.output_tokens ?? 0,
      cacheReadTokens: cached,
      cacheWriteTokens: written,
      costUsd: 0,
    },
    longCacheWriteTokens: details?.cache_write_tokens_details?.ttl_12h_tokens ?? 0,
  };
}
