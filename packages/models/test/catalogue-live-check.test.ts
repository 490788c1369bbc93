import { describe, expect, it } from "vitest";
import { ProviderConfig, RoleModelConfig } from "../src/model-config.ts";
import { anthropicModels } from "../src/catalogue/anthropic-models.ts";
import { openAIModels } from "../src/catalogue/openai-models.ts";
import { createProvider } from "../src/create-provider.ts";
import { checkModelLive } from "../src/model-live-check.ts";
import {
  emulatedModels,
  type FakeReply,
  OpenAIEmulator,
  openAIEmulatedModels,
  recordingRetry,
  startAnthropicEmulator,
} from "../src/testing/index.ts";
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

  it("reports a retired model (404 not_found_error) with the model to use instead", async () => {
    wire.server.queue(anthropicError(404, "not_found_error", "model: claude-sonnet-4-5"));
    const check = await checkModelLive(claude({ model: "claude-sonnet-4-5" }), { roles: ["worker"], replacement: "claude-sonnet-5-5" });
    expect(check.status).toBe("failed");
    expect(check.failure).toBe("model_not_served");
    expect(check.message).toMatch(
      /^claude\/claude-sonnet-4-5: HTTP 404 not_found_error: model: claude-sonnet-4-5; .*use claude-sonnet-5-5$/,
    );
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
    expect(check.message).toMatch(
      /HTTP 400 invalid_request_error: `temperature` is deprecated for this model\.; remove roles\.worker\.temperature$/,
    );
  });

  it("reports OpenAI's model_not_found and a missing capability the same way", async () => {
    wire.server.queue(
      openAIError(
        404,
        "The model `gpt-4.1-nano` does not exist or you do not have access to it.",
        "invalid_request_error",
        "model_not_found",
      ),
    );
    expect(await checkModelLive(gpt("gpt-4.1-nano"), { roles: ["planner"], replacement: "gpt-6-luna" })).toMatchObject({
      status: "failed",
      failure: "model_not_served",
      message: expect.stringMatching(/HTTP 404.*does not exist.*use gpt-6-luna$/),
    });
    wire.server.queue(
      openAIError(
        400,
        "Function tools with reasoning_effort are not supported for gpt-6-sol in /v1/chat/completions.",
        "invalid_request_error",
        null,
        "tools",
      ),
    );
    expect(await checkModelLive(gpt("gpt-6-sol"), { roles: ["worker"] })).toMatchObject({
      status: "failed",
      failure: "capability_missing",
    });
  });

  it("learns nothing from a provider that cannot answer now, and says the command goes on", async () => {
    wire.server.queue(anthropicError(529, "overloaded_error", "Overloaded"));
    const check = await checkModelLive(claude(), { roles: ["worker"] });
    expect(check.status).toBe("inconclusive");
    expect(check.message).toMatch(/HTTP 529 overloaded_error: Overloaded; could not be checked now/);
  });
});

/**
 * The catalogue's current models against the strict emulators in
 * @rein/models/testing, which refuse what the providers' pages say they
 * refuse: each current model they serve passes the check (tools and
 * structured output in one call) with no request refused, and a retired
 * one is reported as not served.
 */
describe("the live model check against the strict emulators", () => {
  const current = (entries: typeof anthropicModels) =>
    entries.filter((entry) => entry.status === "current" && !entry.id.includes("*")).map((entry) => entry.id);

  it("passes every current Claude model the Messages emulator serves, and reports a retired one", async () => {
    const { emulator, server } = await startAnthropicEmulator({
      brain: () => ({ content: [{ type: "text", text: '{"ok":true}' }], output: { ok: true } }),
    });
    try {
      const served = current(anthropicModels).filter((id) => id in emulatedModels);
      expect(served).toContain("claude-sonnet-5-5");
      for (const model of [...served, "claude-sonnet-4-5"]) {
        const provider = createProvider(
          "claude",
          ProviderConfig.parse({ kind: "anthropic", baseURL: server.baseURL, maxRetries: 0 }),
          RoleModelConfig.parse({ provider: "claude", model, temperature: 0.3 }),
          { ANTHROPIC_API_KEY: "sk-ant-emulated" },
          { retry: recordingRetry(0).policy },
        );
        const check = await checkModelLive(provider, { roles: ["planner", "worker"], replacement: "claude-sonnet-5-5" });
        expect(check.status, `${model}: ${check.message}`).toBe(model === "claude-sonnet-4-5" ? "failed" : "ok");
      }
      // One call per check, each with the model it checks.
      expect(server.requests.map((request) => request.body.model)).toEqual([...served, "claude-sonnet-4-5"]);
      expect(emulator.refusals).toHaveLength(1);
      expect(emulator.refusals[0]?.message).toContain("claude-sonnet-4-5");
    } finally {
      await server.stop();
    }
  });

  it("passes every current OpenAI model the Responses emulator serves, and reports a retired one", async () => {
    const emulator = new OpenAIEmulator({ brain: () => ({ content: [{ type: "text", text: '{"ok":true}' }], output: { ok: true } }) });
    const server = await emulator.start();
    try {
      const served = current(openAIModels).filter((id) => openAIEmulatedModels.some((model) => model.id === id));
      expect(served).toContain("gpt-6.2-sol");
      for (const model of [...served, "gpt-4.1-nano"]) {
        const provider = createProvider(
          "gpt",
          ProviderConfig.parse({ kind: "openai", baseURL: server.baseURL, maxRetries: 0 }),
          RoleModelConfig.parse({ provider: "gpt", model }),
          { OPENAI_API_KEY: "sk-proj-emulated" },
          { retry: recordingRetry(0).policy },
        );
        const check = await checkModelLive(provider, { roles: ["judge", "worker"], replacement: "gpt-6-luna" });
        expect(check.status, `${model}: ${check.message}`).toBe(model === "gpt-4.1-nano" ? "failed" : "ok");
        if (model === "gpt-4.1-nano") expect(check.failure).toBe("model_not_served");
      }
      expect(server.requests.map((request) => request.body.model)).toEqual([...served, "gpt-4.1-nano"]);
      expect(emulator.refusals.map((refusal) => refusal.status)).toEqual([404]);
    } finally {
      await server.stop();
    }
  });
});
