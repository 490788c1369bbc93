import type { Role, Usage } from "@rein/contracts";
import type { ContentBlock, ModelMessage, ModelToolSchema, StructuredOutputRequest } from "@rein/contracts/model";

export type {
  ContentBlock,
  ModelApi,
  ModelMessage,
  ModelToolSchema,
  StructuredOutputRequest,
  ThinkingContent,
} from "@rein/contracts/model";

export interface ModelRequest {
  role: Role;
  system: string;
  messages: ModelMessage[];
  tools?: ModelToolSchema[];
  output?: StructuredOutputRequest;
  maxTokens?: number;
  /** Who is asking; used for tracing and by the scripted provider, never sent to a provider. */
  metadata?: { runId?: string; stepId?: string };
}

export type StopReason = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "refusal" | "other";

export interface ModelResponse {
  content: ContentBlock[];
  stopReason: StopReason;
  usage: Usage;
  provider: string;
  model: string;
  requestId?: string;
  /** Parsed JSON when the request asked for structured output (not yet validated). */
  output?: unknown;
  /** How many retries the adapter spent before this response. */
  retries: number;
  /**
   * False when the adapter had no price for its model, so `usage.costUsd`
   * is 0 for want of a price, not because the call was free. Absent for
   * providers that are never billed (scripted, replay).
   */
  priceKnown?: boolean;
}

export type ModelStreamEvent =
  | { type: "text_delta"; text: string }
  /** Readable thinking as it arrives (Anthropic's thinking, OpenAI's reasoning summary): shown as progress, never as the answer. */
  | { type: "thinking_delta"; text: string }
  | { type: "tool_call_delta"; id: string; name: string; argumentsDelta: string }
  | { type: "retry"; attempt: number; delayMs: number; reason: string }
  /** The call went out (tracedComplete says so, not the adapter): whoever watches can show it in flight. */
  | { type: "call_started" }
  /** The call is over, answered or failed. */
  | { type: "call_finished"; durationMs: number };

export interface CompleteOptions {
  signal?: AbortSignal;
  /** When given, the adapter streams and reports deltas as they arrive. */
  onEvent?: (event: ModelStreamEvent) => void;
}

/** The one interface every model adapter implements. */
export interface ModelProvider {
  /** The configured provider name, e.g. "anthropic" or "local-ollama". */
  readonly name: string;
  /** The provider kind: "anthropic", "openai", "openai-compatible", "scripted", "replay". */
  readonly kind: string;
  readonly model: string;
  complete(request: ModelRequest, options?: CompleteOptions): Promise<ModelResponse>;
}

export function textOf(content: readonly ContentBlock[]): string {
  return content
    .filter((block): block is Extract<ContentBlock, { type: "text" }> => block.type === "text")
    .map((block) => block.text)
    .join("");
}

export function toolCallsOf(content: readonly ContentBlock[]): Extract<ContentBlock, { type: "tool_call" }>[] {
  return content.filter((block): block is Extract<ContentBlock, { type: "tool_call" }> => block.type === "tool_call");
}
