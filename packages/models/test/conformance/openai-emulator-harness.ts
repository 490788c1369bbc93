import { modelEntryFor } from "../../src/catalogue/model-catalogue.ts";
import type { ModelProvider } from "../../src/model-provider.ts";
import { OpenAIProvider } from "../../src/openai/openai-provider.ts";
import { OpenAIResponsesProvider } from "../../src/openai/responses-provider.ts";
import {
  cutStream,
  type FakeReply,
  FakeServer,
  OpenAIEmulator,
  type OpenAIEmulatorReply,
  openAIResponsesWireFailure,
  openAIWireFailure,
  recordingRetry,
  type WireReply,
} from "../../src/testing/index.ts";
import type { ConformanceHarness } from "./provider-conformance.ts";

/**
 * An OpenAI adapter against the strict emulator of the API it speaks,
 * with a current model: the Responses adapter with gpt-6-sol, or Chat
 * Completions with gpt-4.1 (a model the catalogue routes there). Each step
 * is the emulated model's answer (its usage reported as given), a failure
 * in the API's documented shape, or an answer cut mid-stream. The harness
 * fails the test if the emulator refused any request the adapter sent.
 */
export function openAIEmulatorHarness(api: "responses" | "chat"): ConformanceHarness {
  return {
    name: api === "responses" ? "openai-responses (gpt-6-sol, strict emulator)" : "openai chat completions (gpt-4.1, strict emulator)",
    supports: { failures: true, toolCallDeltas: true, cost: true, thinking: api === "responses" },
    async start(steps, options = {}) {
      const queue = [...steps];
      let next: WireReply | undefined;
      const emulator = new OpenAIEmulator({
        brain: () => {
          if (!next) throw new Error("the emulator was asked to think with no step scripted");
          return brainReply(next);
        },
      });
      const server = await new FakeServer(async (request): Promise<FakeReply> => {
        const step = queue.shift();
        if (!step) throw new Error("the conformance test sent more requests than it scripted");
        if ("fail" in step) return api === "responses" ? openAIResponsesWireFailure(step.fail) : openAIWireFailure(step.fail);
        next = "cut" in step ? step.cut : step.reply;
        const reply = await emulator.respond(request);
        return "cut" in step ? cutStream(reply) : reply;
      }).start("/v1");
      const model = api === "responses" ? "gpt-6-sol" : "gpt-4.1";
      const entry = modelEntryFor("openai", model);
      const settings = {
        name: "openai",
        model,
        apiKey: "sk-conformance",
        baseURL: server.baseURL,
        retry: recordingRetry(options.maxRetries ?? 2).policy,
        ...(entry ? { entry } : {}),
        ...(options.price ? { price: options.price } : {}),
      };
      const provider: ModelProvider =
        api === "responses"
          ? new OpenAIResponsesProvider({ ...settings, effort: "high" })
          : new OpenAIProvider({ ...settings, kind: "openai" });
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
}

function brainReply(reply: WireReply): OpenAIEmulatorReply {
  const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = reply.usage;
  return {
    content: reply.content,
    ...(reply.stopReason !== "end_turn" && reply.stopReason !== "tool_use" ? { stopReason: reply.stopReason } : {}),
    ...(reply.output !== undefined ? { output: reply.output } : {}),
    usage: { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens },
  };
}
