import { z } from "zod";
import type { Role } from "@rein/contracts";
import type { ModelMessage } from "../model-provider.ts";
import type { ModelScriptInput } from "../scripted/script.ts";
import { ScriptedProvider } from "../scripted/scripted-provider.ts";
import { estimateTextTokens } from "../token-estimate.ts";
import { anthropicWireReply } from "./anthropic-wire.ts";
import { FakeServer, type FakeReply, type FakeResponder, type RecordedRequest } from "./fake-model-server.ts";
import { openAIWireReply } from "./openai-wire.ts";

export type WireFormat = "anthropic" | "openai" | "openai-compatible";

export interface ScriptedWireServerOptions {
  format: WireFormat;
  /** Whose conversations of the script this server plays. */
  role: Role;
  script: ModelScriptInput;
  /** The model name the server reports serving. */
  model: string;
  /** Wraps the server's responder, e.g. with an `EmulatedRateLimit` in front of it. */
  wrap?: (respond: FakeResponder) => FakeResponder;
}

/**
 * A fake provider server that plays a model script (the same format the
 * scripted provider reads) in a provider's wire format: it picks the
 * conversation and turn from the request it receives, exactly as
 * `ScriptedProvider` does, and answers as JSON or SSE. The adapters talk to
 * it through the official SDKs, so a whole run can be driven over the wire.
 * `openai-compatible` adds the deviations of local servers (see `OpenAIWireOptions.quirks`).
 */
export function startScriptedWireServer(options: ScriptedWireServerOptions): Promise<FakeServer> {
  const scripted = new ScriptedProvider(options.script, { model: options.model });
  const respond = async (request: RecordedRequest): Promise<FakeReply> => {
    const view = neutralView(options.format, request.body);
    const response = await scripted.complete({ role: options.role, system: view.system, messages: view.messages });
    const reply = {
      content: response.content,
      stopReason: response.stopReason,
      // Input is estimated from what was really sent, so usage grows with the conversation as a real server's does.
      usage: { ...response.usage, inputTokens: estimateTextTokens(JSON.stringify(request.body)) },
      model: options.model,
      output: response.output,
    };
    if (options.format === "anthropic") return anthropicWireReply(reply, request);
    return openAIWireReply(reply, request, { quirks: options.format === "openai-compatible" });
  };
  return new FakeServer(options.wrap ? options.wrap(respond) : respond).start(options.format === "anthropic" ? "" : "/v1");
}

/** The messages of a request in either wire format: only roles and their text are read. */
const WireMessages = z.array(z.object({ role: z.string(), content: z.unknown() })).default([]);

/**
 * What the script selects by: the system prompt, the first user message's
 * text, and how many assistant turns the conversation already has.
 */
function neutralView(format: WireFormat, body: Record<string, unknown>): { system: string; messages: ModelMessage[] } {
  const parsed = WireMessages.safeParse(body.messages);
  // Thrown inside the responder: the fake server answers 400 with this, and the test's failure names it.
  if (!parsed.success) throw new Error(`the request's messages are not a list of {role, content}: ${z.prettifyError(parsed.error)}`);
  const messages = parsed.data;
  const system =
    format === "anthropic"
      ? textOf(body.system)
      : messages
          .filter((message) => message.role === "system" || message.role === "developer")
          .map((message) => textOf(message.content))
          .join("\n");
  const firstUser = messages.find((message) => message.role === "user");
  const assistantTurns = messages.filter((message) => message.role === "assistant").length;
  return {
    system,
    messages: [
      { role: "user", content: [{ type: "text", text: textOf(firstUser?.content) }] },
      ...Array.from({ length: assistantTurns }, (): ModelMessage => ({ role: "assistant", content: [{ type: "text", text: "" }] })),
    ],
  };
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => (typeof part === "object" && part !== null && "text" in part ? String(part.text) : "")).join("\n");
}
