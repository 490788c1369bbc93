import type { FakeReply } from "../fake-model-server.ts";

/** Where OpenAI documents the rules the emulators enforce; each refusal names the page its rule comes from. */
export const openAIDocs = {
  latestModel: "https://developers.openai.com/api/docs/guides/latest-model",
  deploymentChecklist: "https://developers.openai.com/api/docs/guides/deployment-checklist",
  reasoning: "https://developers.openai.com/api/docs/guides/reasoning",
  functionCalling: "https://developers.openai.com/api/docs/guides/function-calling",
  structuredOutputs: "https://developers.openai.com/api/docs/guides/structured-outputs",
  errorCodes: "https://developers.openai.com/api/docs/guides/error-codes",
  promptCaching: "https://developers.openai.com/api/docs/guides/prompt-caching",
  responsesCreate: "https://developers.openai.com/api/reference/resources/responses/methods/create",
  responsesStreaming: "https://developers.openai.com/api/reference/resources/responses/streaming-events",
  chatCreate: "https://developers.openai.com/api/reference/resources/chat/subresources/completions/methods/create",
  conversationState: "https://developers.openai.com/api/docs/guides/conversation-state",
} as const;

/**
 * A request the emulated API refuses, as OpenAI would: the HTTP status and
 * the documented body `{error: {message, type, param, code}}`
 * (https://developers.openai.com/api/docs/guides/error-codes). `rule` is the
 * documentation page the refused rule comes from, so a test that trips it
 * can say which page it broke.
 */
export class OpenAIEmulatorRefusal extends Error {
  readonly status: number;
  readonly param: string | null;
  readonly code: string | null;
  readonly type: string;
  readonly rule: string;

  constructor(refusal: { status?: number; message: string; param?: string | null; code?: string | null; type?: string; rule: string }) {
    super(refusal.message);
    this.name = "OpenAIEmulatorRefusal";
    this.status = refusal.status ?? 400;
    this.param = refusal.param ?? null;
    this.code = refusal.code ?? null;
    this.type = refusal.type ?? "invalid_request_error";
    this.rule = refusal.rule;
  }

  /** The refusal as OpenAI sends it. */
  reply(): FakeReply {
    return {
      status: this.status,
      json: { error: { message: this.message, type: this.type, param: this.param, code: this.code } },
      headers: { "x-request-id": "req_emulator_refused" },
    };
  }
}

/** One refused request, as an emulator records it for the test to assert on. */
export interface OpenAIRecordedRefusal {
  url: string;
  status: number;
  message: string;
  param: string | null;
  code: string | null;
  rule: string;
}
