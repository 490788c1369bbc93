import type Anthropic from "@anthropic-ai/sdk";

type Params = Omit<Anthropic.MessageCreateParamsNonStreaming, "stream">;

const breakpoint: Anthropic.CacheControlEphemeral = { type: "ephemeral" };

/**
 * Marks the prompt's stable prefix for caching, at most three of the four
 * breakpoints a request may carry: the last tool (the tools rarely change),
 * the system prompt, and the last cacheable block of the history. A tool
 * loop only appends, so each turn's request finds the previous turn's write
 * at its history breakpoint and reads every earlier turn from the cache
 * ("In a growing conversation the final block works as long as each turn
 * adds fewer than 20 blocks", https://platform.claude.com/docs/en/build-with-claude/prompt-caching).
 * A prefix below the model's minimum is simply not cached, without an error.
 */
export function withCacheBreakpoints(params: Params): Params {
  const tools = params.tools?.map((tool, index, all) => (index === all.length - 1 ? { ...tool, cache_control: breakpoint } : tool));
  const system = Array.isArray(params.system)
    ? params.system.map((block, index, all) => (index === all.length - 1 ? { ...block, cache_control: breakpoint } : block))
    : params.system;
  return {
    ...params,
    ...(tools ? { tools } : {}),
    ...(system !== undefined ? { system } : {}),
    messages: markLastCacheable(params.messages),
  };
}

// Thinking blocks cannot carry cache_control (they are cached with the turn around them), nor can empty text.
function markLastCacheable(messages: Anthropic.MessageParam[]): Anthropic.MessageParam[] {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (!message || typeof message.content === "string") continue;
    const position = message.content.findLastIndex(
      (block) => block.type !== "thinking" && block.type !== "redacted_thinking" && !(block.type === "text" && block.text === ""),
    );
    if (position < 0) continue;
    const content = message.content.map((block, at) =>
      at === position ? ({ ...block, cache_control: breakpoint } as Anthropic.ContentBlockParam) : block,
    );
    return messages.map((other, at) => (at === index ? ({ ...message, content } as Anthropic.MessageParam) : other));
  }
  return messages;
}
