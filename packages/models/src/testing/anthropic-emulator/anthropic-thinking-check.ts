import { canonicalJson, sha256 } from "@rein/contracts";
import type { EmulatedModel } from "./anthropic-emulated-models.ts";
import { type WireBlock, type WireMessage, type WireRequest, withoutCacheControl } from "./anthropic-emulator-request.ts";
import { docs, type Refusal, refusal } from "./anthropic-emulator-refusal.ts";
import type { SignedThinking, ThinkingSigner } from "./anthropic-thinking-signer.ts";

type ThinkingWireBlock = Extract<WireBlock, { type: "thinking" | "redacted_thinking" }>;
const isThinking = (block: WireBlock): block is ThinkingWireBlock => block.type === "thinking" || block.type === "redacted_thinking";
export const signatureOf = (block: ThinkingWireBlock): string => (block.type === "thinking" ? block.signature : block.data);
const shortHash = (signature: string): string => sha256(signature).slice(7, 23);

/**
 * The conversation a block is bound to: system prompt, tools and the
 * messages before its turn, without cache_control markers ("cache_control
 * markers, wherever you place or move them" do not invalidate a block) and
 * without thinking blocks, whose removal the binding treats apart.
 */
export function conversationPrefix(
  request: Pick<WireRequest, "system" | "tools">,
  before: readonly WireMessage[],
): { prefix: string; thinkingBefore: string[] } {
  const system =
    typeof request.system === "string" ? [{ type: "text", text: request.system }] : (request.system ?? []).map(withoutCacheControl);
  const tools = (request.tools ?? []).map(withoutCacheControl);
  const messages = before.map((message) => ({
    role: message.role,
    content: message.content.filter((block) => !isThinking(block)).map(withoutCacheControl),
  }));
  const thinkingBefore = before.flatMap((message) => message.content.filter(isThinking).map((block) => shortHash(signatureOf(block))));
  return { prefix: sha256(canonicalJson({ system, tools, messages })), thinkingBefore };
}

/** What the emulator handed out for one response whose content had tool calls: how its assistant turn must come back. */
export interface IssuedTurn {
  model: string;
  /** The turn's thinking signatures and tool_use ids, in the order they were returned. */
  sequence: string[];
  /** Its tool_use ids alone, in order. */
  toolUses: string[];
  /** The conversation before the turn when it was made (`prefixField`). */
  prefix: string;
}

export interface ThinkingVerdict {
  /** Each readable thinking block, by message and block index, with what its signature carries. */
  readable: Map<string, SignedThinking>;
  /** Blocks from a model the target cannot read: the API drops them and the request goes on. */
  dropped: { path: string; producedBy: string }[];
}

/**
 * Checks every thinking and redacted_thinking block a request carries, as
 * the thinking page says the API does
 * (https://platform.claude.com/docs/en/build-with-claude/thinking#preserving-thinking-blocks):
 * a tampered or unknown signature is a 400; text changed in a block whose
 * text was shown is a modified block, a 400; blocks of one response must
 * come back in their order, none dropped from the middle; a block of the
 * target model is bound to the conversation before it (a 400 when anything
 * before it changed, except removing a leading run of thinking blocks);
 * another model's block the target cannot read is dropped, not refused.
 */
export function checkThinking(
  request: WireRequest,
  messages: readonly WireMessage[],
  target: { id: string; facts: EmulatedModel },
  signer: ThinkingSigner,
  issued: ReadonlyMap<string, IssuedTurn>,
): Refusal | ThinkingVerdict {
  const verdict: ThinkingVerdict = { readable: new Map(), dropped: [] };
  const latestAssistant = messages.findLastIndex((message) => message.role === "assistant");
  for (const [index, message] of messages.entries()) {
    const seen = new Map<string, { next: number; count: number }>();
    for (const [position, block] of message.content.entries()) {
      if (!isThinking(block)) continue;
      const path = `messages.${index}.content.${position}`;
      if (message.role !== "assistant")
        return refusal("thinking.signature", 400, `${path}: thinking blocks may only appear in assistant messages`, docs.thinking);
      const signed = signer.verify(signatureOf(block));
      const modified = signed && block.type === "thinking" && signed.display === "summarized" && block.thinking !== signed.thinking;
      if (!signed || signed.redacted !== (block.type === "redacted_thinking") || modified) {
        return refusal("thinking.signature", 400, `${path}: Invalid \`signature\` in \`thinking\` block`, docs.thinking);
      }
      if (signed.model !== target.id && !target.facts.readsThinkingOf.includes(signed.model)) {
        verdict.dropped.push({ path, producedBy: signed.model });
        continue;
      }
      const expected = seen.get(signed.response)?.next ?? 0;
      // "Within the latest assistant message" the order is checked; earlier turns are held by the binding of later blocks.
      if (index === latestAssistant && signed.ordinal !== expected) {
        return refusal(
          "thinking.order",
          400,
          `${path}: thinking blocks must be passed back in the order the model generated them; expected block ${expected} of response ${signed.response}, got block ${signed.ordinal}`,
          docs.thinking,
        );
      }
      seen.set(signed.response, { next: signed.ordinal + 1, count: signed.count });
      if (signed.model === target.id) {
        const { prefix, thinkingBefore } = conversationPrefix(request, messages.slice(0, index));
        const recorded = prefixRecord(signed);
        if (!recorded || prefix !== recorded.prefix || !isLeadingRunRemoved(recorded.thinkingBefore, thinkingBefore)) {
          return refusal(
            "thinking.conversation",
            400,
            `${path}: Invalid \`signature\` in \`thinking\` block. The block is bound to a different conversation. Remove the block, or set \`thinking.block_binding.prefix_mismatch_behavior\` to "drop_block". That setting requires the \`thinking-binding-controls-2026-08-01\` value in the \`anthropic-beta\` header.`,
            docs.preservedThinking,
          );
        }
      }
      verdict.readable.set(path, signed);
    }
    for (const [response, { next, count }] of seen) {
      if (index === latestAssistant && next !== count) {
        return refusal(
          "thinking.order",
          400,
          `messages.${index}: ${count - next} of the thinking blocks of response ${response} were dropped; pass them all back, in order`,
          docs.thinking,
        );
      }
    }
    const turn = issuedTurnOf(message, issued);
    if (message.role === "assistant" && turn && turn.model === target.id) {
      const sequence = message.content.flatMap((block) =>
        isThinking(block) ? [signatureOf(block)] : block.type === "tool_use" ? [block.id] : [],
      );
      // After an edit to the history before a turn, removing all of that turn's thinking is the documented fix
      // ("remove thinking in the kept turns": https://platform.claude.com/docs/en/build-with-claude/preserved-thinking/prefix-checks);
      // with its history unchanged, a turn must keep all of it, unmodified and in place.
      const historyEdited = prefixField(request, messages.slice(0, index)) !== turn.prefix;
      const allRemoved = historyEdited && !message.content.some(isThinking) && canonicalJson(sequence) === canonicalJson(turn.toolUses);
      if (!allRemoved && canonicalJson(sequence) !== canonicalJson(turn.sequence)) {
        // Stricter than the API in adaptive mode, which degrades instead: "Required: within a tool-use turn, pass thinking blocks back".
        return refusal(
          "thinking.tool_loop",
          400,
          `messages.${index}: the thinking blocks of this tool-use turn were not passed back as they were returned (each one unmodified, in its place beside the tool_use blocks)`,
          docs.thinking,
        );
      }
    }
  }
  return verdict;
}

// The prefix and the thinking blocks before it are folded into one field of the payload.
function prefixRecord(signed: SignedThinking): { prefix: string; thinkingBefore: string[] } | undefined {
  const [prefix, ...thinkingBefore] = signed.prefix.split("|");
  return prefix ? { prefix, thinkingBefore } : undefined;
}

/** The value of a signature's `prefix` field for a block produced after `before`. */
export function prefixField(request: Pick<WireRequest, "system" | "tools">, before: readonly WireMessage[]): string {
  const { prefix, thinkingBefore } = conversationPrefix(request, before);
  return [prefix, ...thinkingBefore].join("|");
}

// "Removing a leading run of thinking blocks, oldest first" keeps later blocks valid; any other removal does not.
function isLeadingRunRemoved(recorded: readonly string[], present: readonly string[]): boolean {
  if (present.length > recorded.length) return false;
  return recorded.slice(recorded.length - present.length).every((hash, index) => hash === present[index]);
}

function issuedTurnOf(message: WireMessage, issued: ReadonlyMap<string, IssuedTurn>): IssuedTurn | undefined {
  for (const block of message.content) if (block.type === "tool_use" && issued.has(block.id)) return issued.get(block.id);
  return undefined;
}
