import type { Role, Usage } from "@rein/contracts";
import type { ContentBlock, ModelMessage, ModelToolSchema, StructuredOutputRequest } from "@rein/contracts/model";
import type { ProviderFailure } from "./errors-classify.ts";
import type { RateWaitReason } from "./rate-limit/rate-limiter.ts";

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
  /** When the caller must have its answer (ms since the epoch, the step's deadline): waiting for rate-limit capacity never goes past it. */
  deadline?: number;
  /** Told once a call waited for the fleet's rate budget, granted or not (tracedComplete traces it as `model.waited`). */
  onWaited?: (wait: ModelWait) => void | Promise<void>;
  /** Set by RateLimitedProvider: an adapter that `gatesAttempts` passes every attempt through it. */
  rateGate?: AttemptGate;
}

/** How long a call waited for the fleet's rate budget, and why. */
export interface ModelWait {
  provider: string;
  model: string;
  waitedMs: number;
  /** What was short when the call last had to wait. */
  reason: RateWaitReason;
  /** False when the wait would have passed the deadline, so the call was not made. */
  granted: boolean;
}

/** The fleet's rate budget around each attempt of one call (retries included). */
export interface AttemptGate {
  /** Waits until the budget has room for one attempt and reserves it. */
  acquire(): Promise<void>;
  /** The attempt was answered: its rate-limit headers adjust the budget. */
  succeeded(headers: Headers | undefined): Promise<void>;
  /** The attempt failed: its headers adjust the budget, and a 429 pauses the fleet's calls to the model. */
  failed(failure: ProviderFailure | undefined): Promise<void>;
}

/** The one interface every model adapter implements. */
export interface ModelProvider {
  /** The configured provider name, e.g. "anthropic" or "local-ollama". */
  readonly name: string;
  /** The provider kind: "anthropic", "openai", "openai-compatible", "scripted", "replay". */
  readonly kind: string;
  readonly model: string;
  /** True for adapters that pass each HTTP attempt through `options.rateGate`; others are gated once per call. */
  readonly gatesAttempts?: boolean;
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
