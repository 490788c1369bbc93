import type { ContentBlock } from "./model-provider.ts";

type ToolCallBlock = Extract<ContentBlock, { type: "tool_call" }>;

/**
 * Turns a tool call's raw JSON arguments into a content block. Arguments that
 * are cut off or not a JSON object make the call `incomplete`, so the runtime
 * can never execute a call the model did not finish. An empty string is a
 * call with no arguments (OpenAI-compatible servers send "" for those).
 */
export function toolCallBlock(
  id: string,
  name: string,
  rawArguments: string,
  options: {
    /** The call is known to be cut (e.g. its stream block never stopped); its arguments are not trusted even if they parse. */
    cutReason?: string;
    /** Why arguments that do not parse are bad, e.g. "max_tokens" when the reply hit its limit. */
    invalidReason?: string;
  } = {},
): ToolCallBlock {
  if (options.cutReason) {
    return { type: "tool_call", id, name, input: {}, incomplete: { reason: options.cutReason, rawArguments } };
  }
  if (rawArguments.trim() === "") return { type: "tool_call", id, name, input: {} };
  let input: unknown;
  try {
    input = JSON.parse(rawArguments);
  } catch {
    return { type: "tool_call", id, name, input: {}, incomplete: { reason: options.invalidReason ?? "invalid_json", rawArguments } };
  }
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return { type: "tool_call", id, name, input: {}, incomplete: { reason: "not_an_object", rawArguments } };
  }
  return { type: "tool_call", id, name, input };
}
