import { createServer } from "node:net";
import { beforeEach, describe, expect, it } from "vitest";
import { ReinError } from "@rein/contracts";
import { AnthropicProvider } from "../src/anthropic/anthropic-provider.ts";
import type { ModelProvider } from "../src/model-provider.ts";
import { OpenAIProvider } from "../src/openai/openai-provider.ts";
import { checkProviderReachable } from "../src/provider-reachability.ts";
import { recordingRetry } from "../src/testing/index.ts";
import { fakeServerPerTest } from "./fixtures.ts";

const key = "sk-CANARY-fail-fast-0b7e";
const request = {
  role: "planner" as const,
  system: "s",
  messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "go" }] }],
};

/** A loopback port nothing listens on: bound, then released. */
async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("a provider nobody answers for", () => {
  let port: number;
  beforeEach(async () => {
    port = await unusedPort();
  });

  const providers = (): [string, ModelProvider, string][] => [
    [
      "openai-compatible",
      new OpenAIProvider({
        name: "local",
        kind: "openai-compatible",
        model: "qwen3",
        apiKey: key,
        baseURL: `http://127.0.0.1:${port}/v1`,
        retry: recordingRetry(2).policy,
      }),
      `http://127.0.0.1:${port}/v1`,
    ],
    [
      "anthropic",
      new AnthropicProvider({
        name: "claude",
        model: "claude-x",
        apiKey: key,
        baseURL: `http://127.0.0.1:${port}`,
        retry: recordingRetry(2).policy,
      }),
      `http://127.0.0.1:${port}`,
    ],
  ];

  it("fails with one error naming the provider, the base URL and the cause, never the key", async () => {
    for (const [, provider, url] of providers()) {
      const error = (await provider.complete(request).catch((caught: unknown) => caught)) as ReinError;
      expect(ReinError.hasCode(error, "model_error")).toBe(true);
      expect(error.message).toContain(`model provider "${provider.name}"`);
      expect(error.message).toContain(`at ${url})`);
      expect(error.message).toContain("ECONNREFUSED");
      expect(error.message).toContain("after 2 retries");
      expect(JSON.stringify({ message: error.message, details: error.details, cause: String(error.cause) })).not.toContain(key);
      // The call spent its own retries; the queue must not start them over.
      expect(error.retryable).toBe(false);
      expect(error.details).toMatchObject({ reason: "connection", transient: true, retries: 2, baseURL: url });
    }
  });

  it("is caught by the reachability probe before any request is sent", async () => {
    const error = await checkProviderReachable("local", { kind: "openai-compatible", baseURL: `http://127.0.0.1:${port}/v1` }).catch(
      (caught: unknown) => caught as ReinError,
    );
    expect(ReinError.hasCode(error, "model_error")).toBe(true);
    expect((error as ReinError).message).toMatch(
      new RegExp(`model provider "local" \\(openai-compatible\\) at http://127\\.0\\.0\\.1:${port}/v1 is unreachable: .*ECONNREFUSED`),
    );
  });
});

describe("the reachability probe", () => {
  const wire = fakeServerPerTest("/v1");

  it("passes a listening server without sending it a request, and skips providers with no endpoint of their own", async () => {
    await checkProviderReachable("local", { kind: "openai-compatible", baseURL: wire.server.baseURL });
    await checkProviderReachable("anthropic", { kind: "anthropic" });
    await checkProviderReachable("scripted", { kind: "scripted", baseURL: "http://127.0.0.1:1" });
    expect(wire.server.requests).toEqual([]);
  });
});
