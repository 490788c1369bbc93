import { describe, expect, it } from "vitest";
import { ReinError } from "@rein/contracts";
import { AnthropicProvider } from "../src/anthropic/anthropic-provider.ts";
import type { ModelProvider, ModelRequest } from "../src/model-provider.ts";
import { OpenAIProvider } from "../src/openai/openai-provider.ts";
import { OpenAIResponsesProvider } from "../src/openai/responses-provider.ts";
import { type FakeReply, recordingRetry } from "../src/testing/index.ts";
import { fakeServerPerTest } from "./fixtures.ts";

const key = "sk-LEAK-CANARY-4b8e0d2f9a71";

const request: ModelRequest = { role: "worker", system: "s", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] };

/** Everything an error exposes: message, stack, details and the cause chain. */
function everythingIn(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 10; depth += 1) {
    if (current instanceof Error) {
      parts.push(current.name, current.message, current.stack ?? "");
      parts.push(JSON.stringify(current, Object.getOwnPropertyNames(current)));
      if (ReinError.isInstance(current)) parts.push(JSON.stringify(current.details));
      current = current.cause;
    } else {
      parts.push(String(current));
      current = undefined;
    }
  }
  return parts.join("\n");
}

/** Providers echo (part of) a bad key in 401 bodies; the fake echoes all of it, the worst case. */
const echoingReplies = (status: number): FakeReply[] => [
  { status, json: { type: "error", error: { type: "authentication_error", message: `Incorrect API key provided: ${key}` } } },
];

describe("API keys never appear in errors", () => {
  const wire = fakeServerPerTest();

  const providers = (): [string, ModelProvider][] => [
    [
      "anthropic",
      new AnthropicProvider({
        name: "anthropic",
        model: "claude-test-1",
        apiKey: key,
        baseURL: wire.server.baseURL,
        retry: recordingRetry(1).policy,
      }),
    ],
    [
      "openai",
      new OpenAIProvider({ name: "openai", model: "gpt-test", apiKey: key, baseURL: wire.server.baseURL, retry: recordingRetry(1).policy }),
    ],
    [
      "openai-responses",
      new OpenAIResponsesProvider({
        name: "openai",
        model: "gpt-test",
        apiKey: key,
        baseURL: wire.server.baseURL,
        retry: recordingRetry(1).policy,
      }),
    ],
  ];

  for (const status of [401, 403, 400, 500]) {
    it(`redacts the key from a ${status} error in every adapter`, async () => {
      for (const [, provider] of providers()) {
        wire.server.queue(...echoingReplies(status), ...echoingReplies(status));
        const error = await provider.complete(request).catch((caught: unknown) => caught);
        expect(ReinError.hasCode(error, "model_error")).toBe(true);
        const exposed = everythingIn(error);
        expect(exposed).toContain("[REDACTED]");
        expect(exposed).not.toContain(key);
        expect(exposed).not.toContain("LEAK-CANARY");
      }
      // The key did reach the server, so the check above is not vacuous.
      expect(wire.server.requests[0]?.headers.authorization).toBe(`Bearer ${key}`);
    });
  }

  it("redacts the key from a connection failure", async () => {
    for (const [, provider] of providers()) {
      wire.server.queue({ reset: true }, { reset: true });
      const error = await provider.complete(request).catch((caught: unknown) => caught);
      expect(ReinError.hasCode(error, "model_error")).toBe(true);
      expect((error as ReinError).details).toMatchObject({ reason: "connection", transient: true });
      expect(everythingIn(error)).not.toContain(key);
    }
  });
});
