import { setTimeout as delay } from "node:timers/promises";
import { readJsonFile, type Usage, ReinError } from "@rein/contracts";
import { describeIssues } from "../complete-structured.ts";
import { estimateRequestTokens } from "../token-estimate.ts";
import type { CompleteOptions, ContentBlock, ModelProvider, ModelRequest, ModelResponse } from "../model-provider.ts";
import { resolveEvidencePlaceholders } from "./evidence-placeholders.ts";
import { ModelScript, type ModelScriptInput, type ScriptedConversation, type ScriptedTurn } from "./script.ts";

/** A rough token estimate for scripted usage, so budgets have something to spend. */
const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

/**
 * Plays a fixed script of turns per role. It serves the offline demo and
 * most tests, and records every request so a test can assert what a model
 * was shown.
 */
export class ScriptedProvider implements ModelProvider {
  readonly kind = "scripted";
  readonly name: string;
  readonly model: string;
  readonly requests: ModelRequest[] = [];
  private readonly script: ModelScript;

  constructor(script: ModelScriptInput, options: { name?: string; model?: string } = {}) {
    const parsed = ModelScript.safeParse(script);
    if (!parsed.success) {
      throw new ReinError("config_invalid", `the model script is invalid: ${describeIssues(parsed.error)}`, {
        cause: parsed.error,
      });
    }
    this.script = parsed.data;
    this.name = options.name ?? "scripted";
    this.model = options.model ?? "scripted-1";
  }

  static fromFile(path: string, options: { name?: string; model?: string } = {}): ScriptedProvider {
    const script = ModelScript.safeParse(readJsonFile(path, "model script"));
    if (!script.success)
      throw new ReinError("config_invalid", `model script ${path} is invalid: ${describeIssues(script.error)}`, { cause: script.error });
    return new ScriptedProvider(script.data, options);
  }

  async complete(request: ModelRequest, options: CompleteOptions = {}): Promise<ModelResponse> {
    options.signal?.throwIfAborted();
    // Messages are never changed once sent (a loop appends new ones), so a
    // shallow copy records what the model was shown without a deep clone per turn.
    this.requests.push({ ...request, messages: [...request.messages] });
    const conversation = this.select(request);
    const position = request.messages.filter((message) => message.role === "assistant").length;
    const scripted = conversation.turns[position] ?? (conversation.repeatLast ? conversation.turns.at(-1) : undefined);
    if (!scripted) {
      throw new ReinError(
        "script_exhausted",
        `the ${request.role} script has ${conversation.turns.length} turn(s) for this conversation but turn ${position + 1} was requested`,
      );
    }
    if (scripted.delayMs) {
      // Aborted, it fails with the signal's reason, as a real adapter's request does.
      await delay(scripted.delayMs, undefined, { signal: options.signal }).catch((error: unknown) => {
        options.signal?.throwIfAborted();
        throw error;
      });
    }
    const turn = resolveEvidencePlaceholders(scripted, request);
    const content = this.contentOf(turn, position);
    for (const block of content) {
      if (block.type === "text") options.onEvent?.({ type: "text_delta", text: block.text });
    }
    const usage: Usage = {
      inputTokens: turn.usage?.inputTokens ?? estimateRequestTokens(request),
      outputTokens: turn.usage?.outputTokens ?? estimateTokens(JSON.stringify(content)),
      cacheReadTokens: turn.usage?.cacheReadTokens ?? 0,
      cacheWriteTokens: turn.usage?.cacheWriteTokens ?? 0,
      costUsd: 0,
    };
    const hasCalls = content.some((block) => block.type === "tool_call");
    return {
      content,
      stopReason: turn.stopReason ?? (hasCalls ? "tool_use" : "end_turn"),
      usage,
      provider: this.name,
      model: this.model,
      output: turn.output,
      retries: 0,
    };
  }

  private select(request: ModelRequest): ScriptedConversation {
    const firstUser = request.messages.find((message) => message.role === "user");
    const haystack = `${request.system}\n${firstUser ? JSON.stringify(firstUser.content) : ""}`;
    const conversations = this.script[request.role];
    const found = conversations.find((conversation) => {
      const needles = conversation.match === undefined ? [] : [conversation.match].flat();
      return needles.every((needle) => haystack.includes(needle) || haystack.includes(JSON.stringify(needle).slice(1, -1)));
    });
    if (!found) {
      throw new ReinError(
        "script_exhausted",
        `no scripted ${request.role} conversation matches this request (${conversations.length} conversation(s) in the script)`,
        { details: { role: request.role } },
      );
    }
    return found;
  }

  private contentOf(turn: ScriptedTurn, position: number): ContentBlock[] {
    const content: ContentBlock[] = [];
    if (turn.text !== undefined) content.push({ type: "text", text: turn.text });
    turn.toolCalls.forEach((call, index) => {
      content.push({ type: "tool_call", id: call.id ?? `call_${position}_${index}`, name: call.name, input: call.input });
    });
    if (turn.output !== undefined && turn.text === undefined) {
      content.push({ type: "text", text: JSON.stringify(turn.output) });
    }
    return content;
  }
}
