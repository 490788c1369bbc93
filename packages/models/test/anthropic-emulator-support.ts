import { afterEach, beforeEach } from "vitest";
import { fixtureAround, liveView } from "@rein/contracts/testing";
import {
  type AnthropicBrain,
  type AnthropicEmulatorOptions,
  type AnthropicMessagesEmulator,
  type FakeServer,
  startAnthropicEmulator,
} from "../src/testing/index.ts";

export const headers = { "content-type": "application/json", "x-api-key": "sk-ant-emulator", "anthropic-version": "2026-10-21" };

export interface Posted {
  status: number;
  body: { type?: string; error?: { type: string; message: string }; request_id?: string; [key: string]: unknown };
  text: string;
}

/** Sends a raw body (not through the SDK, whose types would stop a bad one) and reads the answer. */
export async function post(server: FakeServer, body: unknown, extraHeaders: Record<string, string | undefined> = {}): Promise<Posted> {
  const sent = Object.fromEntries(
    Object.entries({ ...headers, ...extraHeaders }).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const response = await fetch(`${server.baseURL}/v1/messages`, { method: "POST", headers: sent, body: JSON.stringify(body) });
  const text = await response.text();
  let parsed: Posted["body"] = {};
  try {
    parsed = JSON.parse(text) as Posted["body"];
  } catch {
    // a stream: the text is the events
  }
  return { status: response.status, body: parsed, text };
}

/** The smallest request every rule accepts. */
export const minimal = { model: "claude-sonnet-5-5", max_tokens: 1024, messages: [{ role: "user", content: "Hello" }] };

/** A brain that says "Hi." and calls nothing. */
export const saysHi: AnthropicBrain = () => ({ content: [{ type: "text", text: "Hi." }] });

/** For each test of the `describe` that calls this: an emulator with `brain` (changeable per test through `brain.current`) behind a local server. */
export function emulatorPerTest(options: Omit<AnthropicEmulatorOptions, "brain"> = {}): {
  readonly emulator: AnthropicMessagesEmulator;
  readonly server: FakeServer;
  brain: { current: AnthropicBrain };
} {
  const brain = { current: saysHi };
  const current = fixtureAround(
    beforeEach,
    afterEach,
    "the Anthropic emulator",
    () => {
      brain.current = saysHi;
      return startAnthropicEmulator({ ...options, brain: (request) => brain.current(request) });
    },
    ({ server }) => server.stop(),
  );
  return Object.assign(liveView(current, ["emulator", "server"]), { brain });
}
