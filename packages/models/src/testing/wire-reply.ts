import type { Usage } from "@rein/contracts";
import type { ContentBlock, StopReason } from "../model-provider.ts";

/** A neutral reply a fake server encodes in its provider's wire format. */
export interface WireReply {
  content: ContentBlock[];
  stopReason: StopReason;
  usage: Usage;
  model: string;
  /** A structured-output reply; Anthropic sends it as the forced tool's input. */
  output?: unknown;
}

/** Splits text after each word, so a streamed reply arrives as several deltas. */
export function streamPieces(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** A JSON string cut in two, so tool arguments arrive as fragments. */
export function halves(text: string): string[] {
  const middle = Math.ceil(text.length / 2);
  return [text.slice(0, middle), text.slice(middle)].filter((piece) => piece.length > 0);
}

export const sseFrame = (data: unknown, event?: string): string => `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;
