import type { Role } from "@rein/contracts";
import type { ModelProvider } from "../../model-provider.ts";
import type { AnthropicBrain, EmulatedBlock, EmulatedReply } from "./anthropic-messages-emulator.ts";

export interface ProviderBrainOptions {
  /**
   * The reasoning the emulated model writes before acting, as current Claude
   * models do with adaptive thinking on. Return "" to skip it for a turn.
   * @defaultValue a sentence naming the tools the turn calls, or none for a turn without calls
   */
  reasoning?: (calls: readonly string[], turn: number) => string;
}

/**
 * A brain that answers with what `provider` (a scripted provider playing a
 * model script, say) answers, shaped as today's Claude models shape it: a
 * signed reasoning block before tool calls, and text written between tool
 * calls returned in thinking blocks ("text between tool calls comes back in
 * thinking blocks", https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5).
 * Drives whole runs of Rein through the emulator.
 */
export function brainOfProvider(provider: ModelProvider, role: Role, options: ProviderBrainOptions = {}): AnthropicBrain {
  const reasoning = options.reasoning ?? ((calls: readonly string[]) => (calls.length > 0 ? `I will call ${calls.join(", ")} next.` : ""));
  return async (request): Promise<EmulatedReply> => {
    const response = await provider.complete({
      role,
      system: request.system,
      messages: request.messages,
      tools: request.tools,
      ...(request.output ? { output: { name: "output", schema: request.output.schema } } : {}),
      maxTokens: request.maxTokens,
    });
    const calls = response.content.flatMap((block) => (block.type === "tool_call" ? [block.name] : []));
    const turn = request.messages.filter((message) => message.role === "assistant").length;
    const thought = reasoning(calls, turn);
    const content: EmulatedBlock[] = thought ? [{ type: "thinking", text: thought }] : [];
    for (const block of response.content) {
      if (block.type === "tool_call") content.push({ type: "tool_use", id: block.id, name: block.name, input: objectOf(block.input) });
      else if (block.type === "text" && block.text && calls.length > 0)
        content.push({ type: "thinking", text: block.text, progress: true });
      else if (block.type === "text" && block.text) content.push({ type: "text", text: block.text });
    }
    return {
      content,
      ...(response.output !== undefined ? { output: response.output } : {}),
      ...(response.stopReason === "max_tokens" || response.stopReason === "refusal" ? { stopReason: response.stopReason } : {}),
    };
  };
}

const objectOf = (input: unknown): Record<string, unknown> =>
  typeof input === "object" && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
