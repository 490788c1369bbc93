import { AnthropicProvider } from "../../src/anthropic/anthropic-provider.ts";
import { modelEntryFor } from "../../src/catalogue/model-catalogue.ts";
import {
  AnthropicMessagesEmulator,
  anthropicWireFailure,
  cutStream,
  type EmulatedBlock,
  type EmulatedReply,
  type FakeReply,
  FakeServer,
  recordingRetry,
  type WireReply,
} from "../../src/testing/index.ts";
import type { ConformanceHarness, ConformanceStep } from "./provider-conformance.ts";

const model = "claude-sonnet-5-5";

/**
 * The Anthropic adapter against the strict Messages API emulator with a
 * current model, claude-sonnet-5-5 and its catalogue entry. Each step is the
 * emulated model's answer (its usage reported as given, unless the step
 * leaves usage to the server's own cache accounting), a failure in the
 * API's documented shape, or an answer cut mid-stream. The harness fails
 * the test if the emulator refused any request the adapter sent.
 */
export const anthropicEmulatorHarness: ConformanceHarness = {
  name: `anthropic (${model}, strict emulator)`,
  supports: { failures: true, toolCallDeltas: true, cost: true, thinking: true, promptCache: true },
  async start(steps, options = {}) {
    const queue = [...steps];
    let next: Extract<ConformanceStep, { reply: WireReply }> | { cut: WireReply } | undefined;
    const emulator = new AnthropicMessagesEmulator({
      brain: () => {
        if (!next) throw new Error("the emulator was asked to think with no step scripted");
        return "cut" in next ? brainReply(next.cut, false) : brainReply(next.reply, next.measuredUsage !== true);
      },
    });
    const server = await new FakeServer(async (request): Promise<FakeReply> => {
      const step = queue.shift();
      if (!step) throw new Error("the conformance test sent more requests than it scripted");
      if ("fail" in step) return anthropicWireFailure(step.fail);
      next = step;
      const reply = await emulator.respond(request);
      return "cut" in step ? cutStream(reply) : reply;
    }).start();
    const entry = modelEntryFor("anthropic", model);
    const provider = new AnthropicProvider({
      name: "anthropic",
      model,
      apiKey: "sk-ant-conformance",
      baseURL: server.baseURL,
      retry: recordingRetry(options.maxRetries ?? 2).policy,
      ...(entry ? { entry } : {}),
      ...(options.price ? { price: options.price } : {}),
    });
    return {
      provider,
      requestCount: () => server.requests.length,
      close: async () => {
        await server.stop();
        if (emulator.refusals.length > 0)
          throw new Error(`the emulator refused what the adapter sent: ${JSON.stringify(emulator.refusals)}`);
      },
    };
  },
};

/** A neutral reply as the emulated model's answer: thinking as thinking, calls as tool_use, output as the JSON text. */
function brainReply(reply: WireReply, reportUsage: boolean): EmulatedReply {
  const content = reply.content.flatMap((block): EmulatedBlock[] => {
    if (block.type === "text") return reply.output === undefined ? [{ type: "text", text: block.text }] : [];
    if (block.type === "thinking") return [{ type: "thinking", text: block.text }];
    if (block.type === "tool_call")
      return [{ type: "tool_use", id: block.id, name: block.name, input: block.input as Record<string, unknown> }];
    return [];
  });
  const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = reply.usage;
  return {
    content,
    ...(reply.output !== undefined ? { output: reply.output } : {}),
    ...(reply.stopReason === "max_tokens" || reply.stopReason === "refusal" || reply.stopReason === "stop_sequence"
      ? { stopReason: reply.stopReason }
      : {}),
    ...(reportUsage
      ? { usage: { inputTokens, outputTokens, cacheReadTokens, cacheWrite5mTokens: cacheWriteTokens, cacheWrite1hTokens: 0 } }
      : {}),
  };
}
