import { describe, expect, it } from "vitest";
import { ProviderConfig, RoleModelConfig } from "../../src/config/config.ts";
import { createProvider } from "../../src/models/create-provider.ts";
import { checkModelLive } from "../../src/models/model-live-check.ts";
import { type FakeReply, recordingRetry } from "../../src/testing/index.ts";
import { fakeServerPerTest } from "./fixtures.ts";

/**
 * `rein models check` and the start of `rein run`, `serve` and `worker`
 * make one call per role through the real adapter and SDK, against a local
 * server answering in the provider's documented error shapes:
 * platform.claude.com/docs/en/api/errors (`{type: "error", error: {type,
 * message}}`) and developers.openai.com/api/docs/guides/error-codes
 * (`{error: {message, type, param, code}}`).
 */
const anthropicError = (status: number, type: string, message: string): FakeReply => ({
  status,
  json: { type: "error", error: { type, message }, request_id: "req_check" },
  headers: { "request-id": "req_check" },
});
const openAIError = (status: number, message: string, type: string, code: string | null, param: string | null = null): FakeReply => ({
  status,
  json: { error: { message, type, param, code } },
  headers: { "x-request-id": "req_check" },
});

describe("the live model check", () => {
  const wire = fakeServerPerTest();
  const claude = (role: Partial<RoleModelConfig> = {}) =>
    createProvider(
      "claude",
      ProviderConfig.parse({ kind: "anthropic", baseURL: wire.server.baseURL, apiKeyEnv: "CLAUDE_KEY", maxRetries: 0 }),
      RoleModelConfig.parse({ provider: "claude", model: "claude-sonnet-5-5", ...role }),
      { CLAUDE_KEY: "sk-ant-check" },
      { retry: recordingRetry(0).policy },
    );
  const gpt = (model: string) =>
    createProvider(
      "gpt",
      ProviderConfig.parse({ kind: "openai", baseURL: `${wire.server.baseURL}/v1`, apiKeyEnv: "GPT_KEY", maxRetries: 0 }),
      RoleModelConfig.parse({ provider: "gpt", model }),
      { GPT_KEY: "sk-proj-check" },
      { retry: recordingRetry(0).policy },
    );

  it("passes a model that answers, with one call carrying the role's model", async () => {
    wire.server.queue({
      status: 200,
      json: {
        id: "msg_check",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-5-5",
        content: [{ type: "text", text: '{"ok": true}' }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 30, output_tokens: 5 },
      },
    });
    const check = await checkModelLive(claude(), { roles: ["planner", "judge"], keyEnv: "CLAUDE_KEY" });
    expect(check).toMatchObject({ status: "ok", provider: "claude", model: "claude-sonnet-5-5", roles: ["planner", "judge"] });
    expect(wire.server.requests).toHaveLength(1);
    expect(wire.server.requests[0]?.body.model).toBe("claude-sonnet-5-5");
  });

  it("reports a retired model (404 not_found_error) with the model to use instead", async () => {
    wire.server.queue(anthropicError(404, "not_found_error", "model: claude-sonnet-4-5"));
    const check = await checkModelLive(claude({ model: "claude-sonnet-4-5" }), { roles: ["worker"], replacement: "claude-sonnet-5-5" });
    expect(check.status).toBe("failed");
    expect(check.failure).toBe("model_not_served");
    expect(check.message).toMatch(/^claude\/claude-sonnet-4-5: HTTP 404 not_found_error: model: claude-sonnet-4-5; .*use claude-sonnet-5-5$/);
  });

  it("reports a bad key (401) naming the variable to fix, never the key", async () => {
    wire.server.queue(anthropicError(401, "authentication_error", "invalid x-api-key"));
    const check = await checkModelLive(claude(), { roles: ["worker"], keyEnv: "CLAUDE_KEY" });
    expect(check).toMatchObject({ status: "failed", failure: "key_refused" });
    expect(check.message).toContain("set a valid key in CLAUDE_KEY");
    expect(check.message).not.toContain("sk-ant-check");
  });

  it("reports a refused parameter (400 naming it) with the role setting to change", async () => {
    wire.server.queue(anthropicError(400, "invalid_request_error", "`temperature` is deprecated for this model."));
    const check = await checkModelLive(claude(), { roles: ["worker"] });
    expect(check).toMatchObject({ status: "failed", failure: "parameter_refused" });
    expect(check.message).toMatch(/HTTP 400 invalid_request_error: `temperature` is deprecated for this model\.; remove roles\.worker\.temperature$/);
  });

  it("reports OpenAI's model_not_found and a missing capability the same way", async () => {
    wire.server.queue(openAIError(404, "The model `gpt-4.1-nano` does not exist or you do not have access to it.", "invalid_request_error", "model_not_found"));
    expect(await checkModelLive(gpt("gpt-4.1-nano"), { roles: ["planner"], replacement: "gpt-6-luna" })).toMatchObject({
      status: "failed",
      failure: "model_not_served",
      message: expect.stringMatching(/HTTP 404.*does not exist.*use gpt-6-luna$/),
    });
    wire.server.queue(openAIError(400, "Function tools with reasoning_effort are not supported for gpt-6-sol in /v1/chat/completions.", "invalid_request_error", null, "tools"));
    expect(await checkModelLive(gpt("gpt-6-sol"), { roles: ["worker"] })).toMatchObject({ status: "failed", failure: "capability_missing" });
  });

  it("learns nothing from a provider that cannot answer now, and says the command goes on", async () => {
    wire.server.queue(anthropicError(529, "overloaded_error", "Overloaded"));
    const check = await checkModelLive(claude(), { roles: ["worker"] });
    expect(check.status).toBe("inconclusive");
    expect(check.message).toMatch(/HTTP 529 overloaded_error: Overloaded; could not be checked now/);
  });
});
