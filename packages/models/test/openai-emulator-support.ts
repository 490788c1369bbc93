import {
  type FakeReply,
  type OpenAIEmulatorReply,
  type OpenAIEmulatorView,
  OpenAIEmulator,
  type OpenAIEmulatorOptions,
} from "../src/testing/index.ts";

/** An emulator whose brain plays `replies` in order and keeps what it was shown. */
export function scriptedEmulator(
  replies: OpenAIEmulatorReply[],
  options: Omit<OpenAIEmulatorOptions, "brain"> = {},
): { emulator: OpenAIEmulator; seen: OpenAIEmulatorView[] } {
  const queue = [...replies];
  const seen: OpenAIEmulatorView[] = [];
  const emulator = new OpenAIEmulator({
    ...options,
    brain: (view) => {
      seen.push(view);
      const reply = queue.shift();
      if (!reply) throw new Error("the test scripted fewer replies than it sent requests");
      return reply;
    },
  });
  return { emulator, seen };
}

/** One request straight to the emulator's responder, with a key. */
export function post(
  emulator: OpenAIEmulator,
  path: "/v1/responses" | "/v1/chat/completions",
  body: Record<string, unknown>,
): Promise<FakeReply> {
  return emulator.respond({ method: "POST", url: path, headers: { authorization: "Bearer sk-test" }, body });
}

/** The JSON body of a non-streamed reply. */
export function jsonOf(
  reply: FakeReply,
): Record<string, unknown> & { error?: { message: string; type: string; param: string | null; code: string | null } } {
  if (!("json" in reply)) throw new Error("expected a JSON reply");
  return reply.json as Record<string, unknown>;
}

export function statusOf(reply: FakeReply): number {
  return "json" in reply ? reply.status : 200;
}

/** A streamed reply's events: each SSE frame's `event:` name and parsed data. */
export function eventsOf(reply: FakeReply): { event: string | undefined; data: Record<string, unknown> }[] {
  if (!("sse" in reply)) throw new Error("expected a streamed reply");
  return reply.sse
    .split("\n\n")
    .filter((frame) => frame.includes("data: ") && !frame.includes("[DONE]"))
    .map((frame) => ({
      event: frame.match(/^event: (.+)$/m)?.[1],
      data: JSON.parse(frame.match(/^data: (.+)$/m)?.[1] ?? "{}") as Record<string, unknown>,
    }));
}
