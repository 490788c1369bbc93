import type { Role } from "@rein/contracts";
import type { ModelProvider } from "../../model-provider.ts";
import type { OpenAIEmulatorBrain, OpenAIEmulatorReply } from "./emulator-brain.ts";

export interface OpenAIProviderBrainOptions {
  /**
   * The reasoning summary the emulated model shows before acting. Return ""
   * for none (a reasoning model still returns a reasoning item).
   * @defaultValue a sentence naming the tools the turn calls, or none for a turn without calls
   */
  reasoning?: (calls: readonly string[], turn: number) => string;
}

/**
 * A brain that answers with what `provider` (a scripted provider playing a
 * model script, say) answers, shaped as OpenAI's reasoning models shape it:
 * a reasoning item before the calls and text of a turn. Drives whole runs
 * of Rein through the emulator.
 */
export function openAIBrainOfProvider(provider: ModelProvider, role: Role, options: OpenAIProviderBrainOptions = {}): OpenAIEmulatorBrain {
  const reasoning = options.reasoning ?? ((calls: readonly string[]) => (calls.length > 0 ? `I will call ${calls.join(", ")} next.` : ""));
  return async (view): Promise<OpenAIEmulatorReply> => {
    const response = await provider.complete({
      role,
      system: view.instructions,
      messages: view.messages,
      tools: view.tools,
      ...(view.output ? { output: { name: view.output.name, schema: view.output.schema } } : {}),
      ...(view.maxOutputTokens !== undefined ? { maxTokens: view.maxOutputTokens } : {}),
    });
    const calls = response.content.flatMap((block) => (block.type === "tool_call" ? [block.name] : []));
    const thought = reasoning(calls, view.messages.filter((message) => message.role === "assistant").length);
    return {
      content: [
        ...(thought
          ? [{ type: "thinking" as const, text: thought, signature: "", producer: { api: "openai-responses" as const, model: view.model } }]
          : []),
        ...response.content.filter((block) => block.type === "text" || block.type === "tool_call"),
      ],
      ...(response.output !== undefined ? { output: response.output } : {}),
      ...(response.stopReason === "max_tokens" || response.stopReason === "refusal" ? { stopReason: response.stopReason } : {}),
    };
  };
}
