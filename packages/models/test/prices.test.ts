import { describe, expect, it } from "vitest";
import { type Price, ProviderConfig, RoleModelConfig } from "../src/model-config.ts";
import { createProvider } from "../src/create-provider.ts";
import { builtinPriceFor } from "../src/price-table.ts";
import { anthropicModels } from "../src/catalogue/anthropic-models.ts";
import { openAIModels } from "../src/catalogue/openai-models.ts";
import { costOf, priceFor, unpricedModels } from "../src/pricing.ts";
import { tracedComplete } from "../src/traced-complete.ts";
import { recordingRetry } from "../src/testing/index.ts";
import { fakeServerPerTest, MemoryTrace } from "./fixtures.ts";

const request = {
  role: "worker" as const,
  system: "s",
  messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "go" }] }],
};

describe("the built-in prices: the model catalogue's, no second table", () => {
  it("prices current Anthropic and OpenAI models from their catalogue entries, dated snapshots as their base model", () => {
    expect(builtinPriceFor("anthropic", "claude-sonnet-5-5")).toEqual({
      inputPerMTok: 2,
      outputPerMTok: 10,
      cacheReadPerMTok: 0.1,
      cacheWritePerMTok: 2.5,
      cacheWriteLongPerMTok: 4,
    });
    expect(builtinPriceFor("anthropic", "claude-haiku-4-5-20251001")).toMatchObject({
      inputPerMTok: 1,
      outputPerMTok: 5,
      cacheWriteLongPerMTok: 2,
    });
    expect(builtinPriceFor("openai", "gpt-4.1-2025-04-14")).toMatchObject({ inputPerMTok: 2, outputPerMTok: 8, cacheReadPerMTok: 0.5 });
    expect(builtinPriceFor("openai", "gpt-6.2-sol")).toMatchObject({
      inputPerMTok: 2,
      outputPerMTok: 10,
      cacheReadPerMTok: 0.1,
      cacheWritePerMTok: 2.5,
      cacheWriteLongPerMTok: 5,
    });
    for (const entry of [...anthropicModels, ...openAIModels]) {
      if (entry.price) expect(builtinPriceFor(entry.provider, entry.id), entry.id).toMatchObject(entry.price);
    }
  });

  it("knows nothing of retired models, models it does not list, nor what compatible servers serve", () => {
    expect(builtinPriceFor("anthropic", "claude-sonnet-4-5")).toBeUndefined();
    expect(builtinPriceFor("openai", "o4-mini")).toBeUndefined();
    expect(builtinPriceFor("anthropic", "claude-nonexistent-9")).toBeUndefined();
    expect(builtinPriceFor("openai-compatible", "gpt-4.1")).toBeUndefined();
  });

  it("bills a whole call at the long-context rates once its prompt passes the threshold", () => {
    const haiku = builtinPriceFor("anthropic", "claude-haiku-5-5") as Price;
    const usage = (inputTokens: number) => ({ inputTokens, outputTokens: 1_000_000, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 });
    // Up to 100K prompt tokens: $0.10 in, $0.50 out; above: $0.50 in, $2.50 out, output included.
    expect(costOf(usage(100_000), haiku)).toBeCloseTo(0.01 + 0.5, 10);
    expect(costOf(usage(100_001), haiku)).toBeCloseTo((100_001 * 0.5) / 1_000_000 + 2.5, 10);
    // Cache reads count toward the prompt: 50K input + 60K read is over 100K.
    expect(costOf({ ...usage(50_000), cacheReadTokens: 60_000 }, haiku)).toBeCloseTo(0.025 + 2.5 + (60_000 * 0.05) / 1_000_000, 10);
    // OpenAI above 272K: input and cache doubled, output 1.5 times, for the full request.
    const sol = builtinPriceFor("openai", "gpt-6.2-sol") as Price;
    expect(costOf(usage(300_000), sol)).toBeCloseTo((300_000 * 4) / 1_000_000 + 15, 10);
  });

  it("is overridden and extended by config prices keyed provider/model", () => {
    const mine = { inputPerMTok: 1, outputPerMTok: 2, cacheReadPerMTok: 0, cacheWritePerMTok: 0 };
    const prices = { "claude/claude-sonnet-5-5": mine, "local/qwen3": mine };
    expect(priceFor(prices, "claude", "claude-sonnet-5-5", "anthropic")).toBe(mine);
    expect(priceFor(prices, "local", "qwen3", "openai-compatible")).toBe(mine);
    expect(priceFor(prices, "other", "claude-sonnet-5-5", "anthropic")?.inputPerMTok).toBe(2);
    expect(priceFor(prices, "local", "llama3", "openai-compatible")).toBeUndefined();
    // A provider named after its kind finds the built-in row without saying the kind.
    expect(priceFor({}, "anthropic", "claude-haiku-4-5-20251001")?.outputPerMTok).toBe(5);
  });

  it("names the billed models of a run that have no price, and not the free ones", () => {
    const providers = {
      local: ProviderConfig.parse({ kind: "openai-compatible", baseURL: "http://127.0.0.1:1/v1" }),
      claude: ProviderConfig.parse({ kind: "anthropic" }),
      scripted: ProviderConfig.parse({ kind: "scripted" }),
    };
    const roles = {
      planner: { provider: "claude", model: "claude-sonnet-5-5" },
      worker: { provider: "local", model: "qwen3" },
      judge: { provider: "local", model: "qwen3" },
      evaluator: { provider: "scripted", model: "scripted-1" },
    };
    expect(unpricedModels({ providers, prices: {} }, roles)).toEqual([{ provider: "local", model: "qwen3", roles: ["worker", "judge"] }]);
  });
});

describe("cost of a call over the wire", () => {
  const wire = fakeServerPerTest("/v1");

  it("prices Anthropic's 1-hour cache writes apart from its 5-minute ones", async () => {
    const provider = createProvider(
      "claude",
      ProviderConfig.parse({ kind: "anthropic", baseURL: wire.server.baseURL.replace(/\/v1$/, "") }),
      RoleModelConfig.parse({ provider: "claude", model: "claude-sonnet-4-6" }),
      { ANTHROPIC_API_KEY: "sk-ant-x" },
      { retry: recordingRetry(0).policy },
    );
    wire.server.queue({
      status: 200,
      json: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-6",
        content: [{ type: "text", text: "ok" }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: {
          input_tokens: 1_000_000,
          output_tokens: 0,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 3_000_000,
          cache_creation: { ephemeral_5m_input_tokens: 1_000_000, ephemeral_1h_input_tokens: 2_000_000 },
        },
      },
    });
    const response = await provider.complete(request);
    // $3 input + 1M × $3.75 (5 m) + 2M × $6 (1 h).
    expect(response.usage.costUsd).toBeCloseTo(3 + 3.75 + 12, 10);
    expect(response.priceKnown).toBe(true);
  });

  it("reads DeepSeek-style prompt_cache_hit_tokens from a compatible server", async () => {
    const provider = createProvider(
      "deepseek",
      ProviderConfig.parse({ kind: "openai-compatible", baseURL: wire.server.baseURL }),
      RoleModelConfig.parse({ provider: "deepseek", model: "deepseek-chat" }),
      {},
      {
        price: { inputPerMTok: 0.28, outputPerMTok: 0.42, cacheReadPerMTok: 0.028, cacheWritePerMTok: 0 },
        retry: recordingRetry(0).policy,
      },
    );
    wire.server.queue({
      status: 200,
      json: {
        id: "c",
        object: "chat.completion",
        created: 1,
        model: "deepseek-chat",
        choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
        usage: {
          prompt_tokens: 1000,
          completion_tokens: 10,
          total_tokens: 1010,
          prompt_cache_hit_tokens: 800,
          prompt_cache_miss_tokens: 200,
        },
      },
    });
    const response = await provider.complete(request);
    expect(response.usage).toMatchObject({ inputTokens: 200, cacheReadTokens: 800, outputTokens: 10 });
    expect(response.usage.costUsd).toBeCloseTo((200 * 0.28 + 800 * 0.028 + 10 * 0.42) / 1_000_000, 12);
  });

  it("traces a call to a model with no known price as price unknown", async () => {
    const provider = createProvider(
      "local",
      ProviderConfig.parse({ kind: "openai-compatible", baseURL: wire.server.baseURL }),
      RoleModelConfig.parse({ provider: "local", model: "qwen3" }),
      {},
      { retry: recordingRetry(0).policy },
    );
    wire.server.queue({
      status: 200,
      json: {
        id: "c",
        object: "chat.completion",
        created: 1,
        model: "qwen3",
        choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
        usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
      },
    });
    const trace = new MemoryTrace();
    await tracedComplete(provider, request, { trace, runId: "run_1" });
    const responded = trace.events.find((event) => event.kind === "model.responded");
    expect(responded?.payload).toMatchObject({ provider: "local", model: "qwen3", price: "unknown" });
  });
});
