import type { z } from "zod";
import { ReinError, addUsage, totalTokens, Usage, zeroUsage } from "@rein/contracts";
import {
  type CompleteOptions,
  type ContentBlock,
  type ModelMessage,
  type ModelProvider,
  type ModelRequest,
  textOf,
} from "./model-provider.ts";
import { parseJsonText } from "./json-from-model-text.ts";
import { tracedComplete, type ModelCallTrace } from "./traced-complete.ts";

export interface StructuredResult<T> {
  value: T;
  usage: Usage;
  repairs: number;
}

export interface StructuredOptions<T> {
  schema: z.ZodType<T>;
  /** Checks zod cannot express; return a message saying what is wrong, or undefined. */
  check?: (value: T) => string | undefined;
  /** @defaultValue 2 */
  maxRepairs?: number;
  signal?: AbortSignal;
  /** Streamed output as it arrives (the run's live channel); the result is still validated whole. */
  onEvent?: CompleteOptions["onEvent"];
}

/**
 * Asks for structured output, validates it with zod (and `check`), and on
 * invalid output tells the model exactly what was wrong and asks again, at
 * most `maxRepairs` times, then fails with a typed error.
 */
export async function completeStructured<T>(
  provider: ModelProvider,
  request: ModelRequest,
  trace: ModelCallTrace,
  options: StructuredOptions<T>,
): Promise<StructuredResult<T>> {
  const maxRepairs = options.maxRepairs ?? 2;
  const messages: ModelMessage[] = [...request.messages];
  let usage = zeroUsage();
  let problem = "";
  for (let attempt = 0; attempt <= maxRepairs; attempt += 1) {
    const response = await tracedComplete(provider, { ...request, messages }, trace, {
      signal: options.signal,
      onEvent: options.onEvent,
    }).catch((error: unknown) => {
      throw withUsage(error, usage);
    });
    usage = addUsage(usage, response.usage);
    const raw = response.output !== undefined ? response.output : parseJsonText(textOf(response.content));
    const parsed = options.schema.safeParse(raw);
    problem = parsed.success ? (options.check?.(parsed.data) ?? "") : describeIssues(parsed.error);
    if (parsed.success && problem === "") return { value: parsed.data, usage, repairs: attempt };
    await trace.trace.append({
      runId: trace.runId,
      stepId: trace.stepId ?? null,
      parentStepId: trace.parentStepId ?? null,
      kind: "model.output_invalid",
      payload: { role: request.role, attempt: attempt + 1, problem },
    });
    const cutOff = response.stopReason === "max_tokens";
    messages.push({ role: "assistant", content: [{ type: "text", text: whatWasSaid(response.content) }] });
    messages.push({
      role: "user",
      content: [
        {
          type: "text",
          text: cutOff
            ? `Your output was cut off before it was complete (${problem}). Reply again with only the complete JSON, shorter where you can.`
            : `Your output was invalid: ${problem}. Reply again with only the corrected JSON.`,
        },
      ],
    });
  }
  throw new ReinError(
    "model_output_invalid",
    `the ${request.role} model gave invalid output ${maxRepairs + 1} times; last problem: ${problem}`,
    {
      details: { usage },
    },
  );
}

/**
 * The invalid reply as plain text for the repair's history. A repair is not
 * a tool loop: a call left in it (an output tool cut off by max_tokens)
 * would stand unanswered, which providers refuse, and thinking belongs to
 * tool loops only. Never empty: providers refuse empty text blocks.
 */
function whatWasSaid(content: readonly ContentBlock[]): string {
  const said = content
    .flatMap((block) => {
      if (block.type === "text") return [block.text];
      if (block.type === "tool_call") return [block.incomplete ? block.incomplete.rawArguments : JSON.stringify(block.input ?? {})];
      return [];
    })
    .join("\n")
    .trim();
  return said || "(no output)";
}

/** A failed call still cost what the calls before it (the first try, earlier repairs) spent; the caller counts it from `details.usage`. */
function withUsage(error: unknown, usage: Usage): unknown {
  if (!ReinError.isInstance(error) || error.retryable || totalTokens(usage) === 0) return error;
  return new ReinError(error.code, error.message, { cause: error, retryable: false, details: { ...error.details, usage } });
}

/** What a failed structured call spent before it failed, from the error `completeStructured` threw. */
export function usageOfFailure(error: unknown): Usage {
  if (!ReinError.isInstance(error)) return zeroUsage();
  const parsed = Usage.safeParse(error.details.usage);
  return parsed.success ? parsed.data : zeroUsage();
}

/** Names each bad field, what was expected and, where known, what was received. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 8)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(root)"}: ${issue.message}`)
    .join("; ");
}
