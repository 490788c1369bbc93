import { describe, expect, it } from "vitest";
import { ReinError } from "@rein/contracts";
import { AnthropicProvider } from "../src/anthropic/anthropic-provider.ts";
import type { ModelProvider } from "../src/model-provider.ts";
import { OpenAIProvider } from "../src/openai/openai-provider.ts";
import { providerOnFakeWire, workerRequest as request } from "./fixtures.ts";

const anthropicError = (type: string, message: string, extra: Record<string, unknown> = {}) => ({
  type: "error",
  error: { type, message, ...extra },
});
const anthropicOk = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-test-1",
  content: [{ type: "text", text: "done" }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 5, output_tokens: 1 },
};
const openAIOk = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "gpt-test",
  choices: [{ index: 0, message: { role: "assistant", content: "done", refusal: null }, finish_reason: "stop", logprobs: null }],
  usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
};

async function failureOf(provider: ModelProvider): Promise<ReinError> {
  const error = await provider.complete(request).catch((caught: unknown) => caught);
  expect(ReinError.hasCode(error, "model_error")).toBe(true);
  return error as ReinError;
}

describe("retry classification through @anthropic-ai/sdk", () => {
  const wire = providerOnFakeWire(
    3,
    undefined,
    ({ server, retry }) =>
      new AnthropicProvider({
        name: "anthropic",
        model: "claude-test-1",
        apiKey: "sk-ant-x",
        baseURL: server.baseURL,
        retry: retry.policy,
      }),
  );

  it("never retries a 429 whose details say the spend limit was reached", async () => {
    wire.server.queue({
      status: 429,
      json: anthropicError("rate_limit_error", "Your organization has reached its monthly cap; access resumes on the 1st.", {
        details: { error_code: "enforced_spend_limit_reached" },
      }),
      headers: { "request-id": "req_spend", "x-should-retry": "true" },
    });
    const error = await failureOf(wire.provider);
    expect(wire.server.requests).toHaveLength(1);
    expect(error.details).toMatchObject({ reason: "quota_exhausted", errorCode: "enforced_spend_limit_reached", transient: false });
  });

  it("obeys x-should-retry: false on a 529 and x-should-retry: true on a 400", async () => {
    wire.server.queue({ status: 529, json: anthropicError("overloaded_error", "Overloaded"), headers: { "x-should-retry": "false" } });
    const overloaded = await failureOf(wire.provider);
    expect(wire.server.requests).toHaveLength(1);
    expect(overloaded.details).toMatchObject({ reason: "overloaded", transient: false });

    wire.server.queue(
      { status: 400, json: anthropicError("invalid_request_error", "try again"), headers: { "x-should-retry": "true" } },
      { status: 200, json: anthropicOk },
    );
    const response = await wire.provider.complete(request);
    expect(response.retries).toBe(1);
    expect(wire.server.requests).toHaveLength(3);
  });

  it("fails at once with the server's delay when retry-after is longer than the cap", async () => {
    wire.server.queue({ status: 429, json: anthropicError("rate_limit_error", "slow down"), headers: { "retry-after": "7200" } });
    const error = await failureOf(wire.provider);
    expect(wire.server.requests).toHaveLength(1);
    expect(wire.retry.waits).toEqual([]);
    expect(error.message).toContain("asked to wait 7200 s");
    expect(error.details).toMatchObject({ retryAfterMs: 7_200_000 });
  });

  it("honours retry-after-ms within the cap", async () => {
    wire.server.queue(
      { status: 429, json: anthropicError("rate_limit_error", "slow down"), headers: { "retry-after-ms": "1500", "retry-after": "2" } },
      { status: 200, json: anthropicOk },
    );
    await wire.provider.complete(request);
    expect(wire.retry.waits).toEqual([1500]);
  });

  it("maps a malformed stream event to a protocol error, not retried", async () => {
    wire.server.queue({
      sse: 'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"c","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}\n\nevent: content_block_start\ndata: {"type":"content_block_start", not json\n\n',
    });
    const error = (await wire.provider.complete(request, { onEvent: () => {} }).catch((caught: unknown) => caught)) as ReinError;
    expect(ReinError.hasCode(error, "model_error")).toBe(true);
    expect(error.details).toMatchObject({ kind: "protocol", reason: "protocol" });
    expect(wire.server.requests).toHaveLength(1);
  });

  it("takes the request id from the body when the header is absent", async () => {
    wire.server.queue({ status: 403, json: { ...anthropicError("permission_error", "not allowed"), request_id: "req_from_body" } });
    const error = await failureOf(wire.provider);
    expect(error.details).toMatchObject({ requestId: "req_from_body" });
    expect(error.message).toContain("req_from_body");
  });
});

describe("retry classification through the openai SDK", () => {
  const wire = providerOnFakeWire(
    3,
    "/v1",
    ({ server, retry }) =>
      new OpenAIProvider({ name: "openai", model: "gpt-test", apiKey: "sk-x", baseURL: server.baseURL, retry: retry.policy }),
  );

  it.each([
    ["insufficient_quota", "insufficient_quota", "You exceeded your current quota, please check your plan and billing details."],
    ["project_spend_limit_exceeded", "insufficient_quota", "Project budget exhausted."],
    ["organization_usage_limit_exceeded", "requests", "Usage limit reached."],
  ])("never retries a 429 with code %s", async (code, type, message) => {
    wire.server.queue({ status: 429, json: { error: { message, type, param: null, code } } });
    const error = await failureOf(wire.provider);
    expect(wire.server.requests).toHaveLength(1);
    expect(error.details).toMatchObject({ reason: "quota_exhausted" });
  });

  it("still retries an ordinary rate limit", async () => {
    wire.server.queue(
      {
        status: 429,
        json: { error: { message: "Rate limit reached for requests", type: "requests", param: null, code: "rate_limit_exceeded" } },
      },
      { status: 200, json: openAIOk },
    );
    expect((await wire.provider.complete(request)).retries).toBe(1);
  });

  it("obeys x-should-retry both ways", async () => {
    wire.server.queue({
      status: 503,
      json: { error: { message: "unavailable", type: "server_error" } },
      headers: { "x-should-retry": "false" },
    });
    await failureOf(wire.provider);
    expect(wire.server.requests).toHaveLength(1);

    wire.server.queue(
      { status: 422, json: { error: { message: "busy", type: "invalid_request_error" } }, headers: { "x-should-retry": "true" } },
      { status: 200, json: openAIOk },
    );
    expect((await wire.provider.complete(request)).retries).toBe(1);
  });

  it("takes the request id from the error body when the header is absent", async () => {
    wire.server.queue({ status: 400, json: { error: { message: "bad", type: "invalid_request_error", request_id: "req_body_oa" } } });
    expect((await failureOf(wire.provider)).details).toMatchObject({ requestId: "req_body_oa" });
  });
});
