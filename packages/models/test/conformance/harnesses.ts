import type { Role } from "@rein/contracts";
import type { ModelRequest, ModelResponse, CompleteOptions } from "../../src/model-provider.ts";
import { OpenAIProvider } from "../../src/openai/openai-provider.ts";
import { ReplayProvider } from "../../src/replay/replay-provider.ts";
import type { ScriptedTurn } from "../../src/scripted/script.ts";
import { ScriptedProvider } from "../../src/scripted/scripted-provider.ts";
import {
  cutStream,
  type FakeReply,
  FakeServer,
  openAIWireFailure,
  openAIWireReply,
  recordingRetry,
  type WireReply,
} from "../../src/testing/index.ts";
import type { ConformanceHarness, ConformanceStep } from "./provider-conformance.ts";

const model = "conformance-model";

/** An OpenAI adapter against a local server speaking the wire format, through the official SDK (Anthropic's runs against its strict emulator, `anthropic-emulator-harness.ts`). */
export function wireHarness(format: "openai" | "openai-compatible"): ConformanceHarness {
  return {
    name: format,
    supports: { failures: true, toolCallDeltas: true, cost: true },
    async start(steps, options = {}) {
      const queue = [...steps];
      const server = await new FakeServer((request): FakeReply => {
        const step = queue.shift();
        if (!step) throw new Error("the conformance test sent more requests than it scripted");
        if ("fail" in step) return openAIWireFailure(step.fail);
        const encode = (reply: WireReply) => openAIWireReply(reply, request, { quirks: format === "openai-compatible" });
        return "cut" in step ? cutStream(encode(step.cut)) : encode(step.reply);
      }).start("/v1");
      const settings = {
        name: format,
        model,
        apiKey: "sk-conformance",
        baseURL: server.baseURL,
        retry: recordingRetry(options.maxRetries ?? 2).policy,
        ...(options.price ? { price: options.price } : {}),
      };
      const provider = new OpenAIProvider({ ...settings, kind: format });
      return { provider, requestCount: () => server.requests.length, close: () => server.stop() };
    },
  };
}

/** The scripted provider, playing each reply as a one-turn conversation for every role. */
export const scriptedHarness: ConformanceHarness = {
  name: "scripted",
  supports: { failures: false, toolCallDeltas: false, cost: false },
  async start(steps) {
    const reply = onlyReply(steps);
    const conversation = [{ turns: [turnOf(reply)] }];
    const roles: Role[] = ["planner", "worker", "evaluator", "judge"];
    const provider = new ScriptedProvider(Object.fromEntries(roles.map((role) => [role, conversation])), { model });
    return { provider, requestCount: () => provider.requests.length, close: async () => {} };
  },
};

/** The replay provider, playing the replies as recorded responses. */
export const replayHarness: ConformanceHarness = {
  name: "replay",
  supports: { failures: false, toolCallDeltas: false, cost: false },
  async start(steps) {
    const reply = onlyReply(steps);
    const recorded: ModelResponse = { ...reply, provider: "replay", retries: 0 };
    const provider = new CountingReplay([recorded], { model });
    return { provider, requestCount: () => provider.calls, close: async () => {} };
  },
};

class CountingReplay extends ReplayProvider {
  calls = 0;
  override complete(request: ModelRequest, options?: CompleteOptions): Promise<ModelResponse> {
    this.calls += 1;
    return super.complete(request, options);
  }
}

function onlyReply(steps: readonly ConformanceStep[]): WireReply {
  const [step] = steps;
  if (!step || !("reply" in step)) throw new Error("a provider without a wire plays replies only");
  return step.reply;
}

function turnOf(reply: WireReply): ScriptedTurn {
  const text = reply.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
  return {
    ...(text ? { text } : {}),
    toolCalls: reply.content.flatMap((block) =>
      block.type === "tool_call" ? [{ id: block.id, name: block.name, input: block.input }] : [],
    ),
    ...(reply.output !== undefined ? { output: reply.output } : {}),
    ...(reply.stopReason !== "other" ? { stopReason: reply.stopReason } : {}),
    usage: { ...reply.usage },
  };
}
