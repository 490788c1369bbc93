import type { ContentBlock, ModelMessage, ModelToolSchema } from "@rein/contracts/model";
import { estimateRequestTokens, estimateTextTokens } from "@rein/models";

export interface ContextBudgetInput {
  system: string;
  messages: readonly ModelMessage[];
  tools?: readonly ModelToolSchema[];
  /** What the whole request may take, in estimated tokens (the role's `contextTokens`). */
  budgetTokens: number;
  /** The observation id behind each tool call id, so the note names what was dropped (asked only for a dropped result). */
  observationIds?: Pick<ReadonlyMap<string, string>, "get">;
}

export interface DroppedToolResult {
  toolCallId: string;
  observationId: string | null;
  tool: string;
  /** Estimated tokens the result took. */
  tokens: number;
}

export interface CompiledContext {
  messages: ModelMessage[];
  dropped: DroppedToolResult[];
  estimatedTokens: number;
  originalTokens: number;
  /** Still over budget with every droppable result dropped: only the task and the last turn are left. */
  overBudget: boolean;
}

/**
 * The prompt compiler's budget pass. When the request's estimated tokens
 * (`estimateRequestTokens`) exceed the budget, it drops the oldest tool
 * results first until it fits, and says so in the context: each dropped
 * result keeps its place (so every tool_call still has its tool_result)
 * with a stub naming it, and a note at the end lists them all. The task
 * message and the last turn (the latest assistant message and the results
 * that answer it) are never touched, except that thinking after the first
 * edit is taken out: a thinking block is bound to everything before it, and
 * the providers refuse one whose history changed. Pure: the input is not modified.
 */
export function fitContextBudget(input: ContextBudgetInput): CompiledContext {
  const estimate = (messages: readonly ModelMessage[]) => estimateRequestTokens({ system: input.system, messages, tools: input.tools });
  const originalTokens = estimate(input.messages);
  const unchanged = { messages: [...input.messages], dropped: [], estimatedTokens: originalTokens, originalTokens, overBudget: false };
  if (originalTokens <= input.budgetTokens) return unchanged;

  const toolNames = new Map<string, string>();
  for (const message of input.messages) {
    for (const block of message.content) if (block.type === "tool_call") toolNames.set(block.id, block.name);
  }
  const lastAssistant = input.messages.findLastIndex((message) => message.role === "assistant");
  const candidates: { messageIndex: number; blockIndex: number }[] = [];
  input.messages.forEach((message, messageIndex) => {
    if (messageIndex === 0 || messageIndex >= lastAssistant) return;
    message.content.forEach((block, blockIndex) => {
      if (block.type === "tool_result") candidates.push({ messageIndex, blockIndex });
    });
  });

  const messages = [...input.messages];
  const dropped: DroppedToolResult[] = [];
  let current = originalTokens;
  for (const { messageIndex, blockIndex } of candidates) {
    if (current <= input.budgetTokens) break;
    const message = messages[messageIndex] as ModelMessage;
    const block = message.content[blockIndex] as Extract<ContentBlock, { type: "tool_result" }>;
    const entry: DroppedToolResult = {
      toolCallId: block.toolCallId,
      observationId: input.observationIds?.get(block.toolCallId) ?? null,
      tool: toolNames.get(block.toolCallId) ?? "unknown tool",
      tokens: estimateTextTokens(block.content),
    };
    dropped.push(entry);
    // A new message object, never an edit: token estimates are memoized per object.
    messages[messageIndex] = {
      ...message,
      content: message.content.map((candidate, index) =>
        index === blockIndex
          ? { ...block, content: `[dropped to fit the context budget: the result of ${entry.tool} (${nameOf(entry)}); see the note below]` }
          : candidate,
      ),
    };
    current = estimate(withNote(messages, dropped, input.budgetTokens));
  }
  if (dropped.length === 0) return { ...unchanged, overBudget: true };
  const firstEdited =
    candidates.find(({ messageIndex }) => messages[messageIndex] !== input.messages[messageIndex])?.messageIndex ?? messages.length;
  const compiled = withNote(withoutThinkingFrom(messages, firstEdited), dropped, input.budgetTokens);
  return { messages: compiled, dropped, estimatedTokens: current, originalTokens, overBudget: current > input.budgetTokens };
}

/** The messages with the thinking of every assistant turn from `from` on removed (new objects only where something was removed). */
function withoutThinkingFrom(messages: readonly ModelMessage[], from: number): ModelMessage[] {
  return messages.map((message, index) =>
    index < from || message.role !== "assistant" || !message.content.some((block) => block.type === "thinking")
      ? message
      : { ...message, content: message.content.filter((block) => block.type !== "thinking") },
  );
}

const nameOf = (entry: DroppedToolResult) => entry.observationId ?? `call ${entry.toolCallId}`;

/** The note goes at the end of the context, where the model reads it right before answering. */
function withNote(messages: readonly ModelMessage[], dropped: readonly DroppedToolResult[], budgetTokens: number): ModelMessage[] {
  const count = dropped.length === 1 ? "1 earlier tool result" : `${dropped.length} earlier tool results`;
  const note: ContentBlock = {
    type: "text",
    text:
      `Note from the runtime: ${count} (${dropped.map(nameOf).join(", ")}) ${dropped.length === 1 ? "was" : "were"} dropped to fit the context budget of ` +
      `${budgetTokens} tokens. The calls that produced them are still shown; call a tool again if you need what it returned.`,
  };
  const last = messages.at(-1);
  if (last?.role === "user") return [...messages.slice(0, -1), { ...last, content: [...last.content, note] }];
  return [...messages, { role: "user", content: [note] }];
}
