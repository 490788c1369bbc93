import type { Usage } from "@rein/contracts";
import type { ContentBlock, ModelMessage, ModelToolSchema, StopReason } from "../../model-provider.ts";

/**
 * What a brain is shown of one request, the same whichever API it came
 * over: the instructions (Responses' `instructions` and any system or
 * developer message, in order), the conversation as neutral messages
 * (reasoning items sent back appear as `thinking` blocks, function calls
 * as `tool_call`s by call id, their outputs as `tool_result`s), the
 * function tools, and the structured output asked for.
 */
export interface OpenAIEmulatorView {
  api: "responses" | "chat";
  model: string;
  instructions: string;
  messages: ModelMessage[];
  tools: ModelToolSchema[];
  output?: { name: string; schema: Record<string, unknown>; strict: boolean };
  /** The reasoning effort the request runs at (sent or the model's default); absent for a model that does not reason. */
  effort?: string;
  maxOutputTokens?: number;
  stream: boolean;
}

/**
 * A brain's answer, which the emulator encodes as the API would: `thinking`
 * blocks become reasoning items (their text the summary, shown only when
 * the request asked for a summary; the emulator seals them itself),
 * `text` a message, `tool_call`s function calls whose call id is the
 * block's id. A reasoning model that is not told to think still returns a
 * reasoning item before its output, as OpenAI's do.
 */
export interface OpenAIEmulatorReply {
  content: ContentBlock[];
  /**
   * `max_tokens` ends the reply incomplete (`max_output_tokens`), its last
   * item cut; `refusal` sends the text as a refusal.
   * @defaultValue `tool_use` when the content calls a tool, else `end_turn`
   */
  stopReason?: StopReason;
  /** Structured output, sent as the message's JSON text (strict decoding fills `null` where the schema allows it). */
  output?: unknown;
  /** Usage to report instead of the emulator's own count; `longCacheWriteTokens` are the 12-hour part of the writes. */
  usage?: Partial<Omit<Usage, "costUsd">> & { longCacheWriteTokens?: number; reasoningTokens?: number };
}

/** Computes a reply from what a request shows; a whole `rein run` can be driven through one. */
export type OpenAIEmulatorBrain = (view: OpenAIEmulatorView) => OpenAIEmulatorReply | Promise<OpenAIEmulatorReply>;
