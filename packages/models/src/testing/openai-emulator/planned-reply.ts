import { estimateTextTokens } from "../../token-estimate.ts";
import type { OpenAIEmulatorReply, OpenAIEmulatorView } from "./emulator-brain.ts";
import { asStrictDecodingWrites } from "./schema-rules.ts";

/** One output item of a reply, before either API spells it. */
export type PlannedItem =
  | { kind: "reasoning"; summary: string[] }
  | { kind: "text"; text: string }
  | { kind: "refusal"; text: string }
  | { kind: "call"; callId: string; name: string; arguments: string };

export interface PlannedReply {
  items: PlannedItem[];
  /** Cut by the output limit: the last item is unfinished. */
  incomplete: boolean;
  outputTokens: number;
  reasoningTokens: number;
}

/** Hidden reasoning a reasoning model spends even when it shows no summary. */
const hiddenReasoningTokens = 24;

/**
 * A brain's reply as the model would produce it under the request: a
 * reasoning model (at an effort other than `none`) puts a reasoning item
 * before its output, whether or not the brain thought aloud; structured
 * output is the message's JSON text; strict decoding writes `null` for
 * nullable fields the brain left out; a reply over `max_output_tokens` (or
 * one the brain ends with `max_tokens`) stops mid-item. A call to a tool
 * the request did not offer is the brain's mistake, not the adapter's, and
 * fails the test loudly.
 */
export function planReply(
  reply: OpenAIEmulatorReply,
  view: OpenAIEmulatorView,
  options: { reasons: boolean; summaries: boolean; strictTools: ReadonlyMap<string, Record<string, unknown>> },
): PlannedReply {
  const items: PlannedItem[] = [];
  const refusal = reply.stopReason === "refusal";
  const structured = view.output && reply.output !== undefined;
  for (const block of reply.content) {
    if (block.type === "thinking" && options.reasons) {
      items.push({ kind: "reasoning", summary: options.summaries && block.text ? (block.item?.summary ?? [block.text]) : [] });
    } else if (block.type === "text" && !structured && block.text) {
      const last = items.at(-1);
      if (last?.kind === "text" || last?.kind === "refusal") last.text += block.text;
      else items.push({ kind: refusal ? "refusal" : "text", text: block.text });
    } else if (block.type === "tool_call") {
      const tool = view.tools.find((candidate) => candidate.name === block.name);
      if (!tool)
        throw new Error(
          `the brain called ${block.name}, which the request did not offer (offered: ${view.tools.map((offered) => offered.name).join(", ") || "none"})`,
        );
      const schema = options.strictTools.get(block.name);
      const input = schema ? asStrictDecodingWrites(block.input ?? {}, schema) : (block.input ?? {});
      items.push({ kind: "call", callId: block.id, name: block.name, arguments: JSON.stringify(input) });
    }
  }
  if (structured && view.output) {
    const output = view.output.strict ? asStrictDecodingWrites(reply.output, view.output.schema) : reply.output;
    const firstCall = items.findIndex((item) => item.kind === "call");
    items.splice(firstCall < 0 ? items.length : firstCall, 0, { kind: "text", text: JSON.stringify(output) });
  }
  if (options.reasons && items[0]?.kind !== "reasoning") items.unshift({ kind: "reasoning", summary: [] });

  const reasoningTokens = items.reduce(
    (sum, item) => sum + (item.kind === "reasoning" ? hiddenReasoningTokens + estimateTextTokens(item.summary.join("")) : 0),
    0,
  );
  const visibleTokens = items.reduce(
    (sum, item) =>
      sum +
      (item.kind === "call"
        ? estimateTextTokens(item.name + item.arguments)
        : item.kind === "reasoning"
          ? 0
          : estimateTextTokens(item.text)),
    0,
  );
  const outputTokens = reasoningTokens + visibleTokens;
  const incomplete = reply.stopReason === "max_tokens" || (view.maxOutputTokens !== undefined && outputTokens > view.maxOutputTokens);
  if (incomplete) cut(items);
  return {
    items,
    incomplete,
    outputTokens: incomplete && view.maxOutputTokens ? Math.min(outputTokens, view.maxOutputTokens) : outputTokens,
    reasoningTokens,
  };
}

/** Where generation stopped: halfway through the last item. */
function cut(items: PlannedItem[]): void {
  const last = items.at(-1);
  if (!last) return;
  if (last.kind === "call") last.arguments = last.arguments.slice(0, Math.ceil(last.arguments.length / 2));
  else if (last.kind !== "reasoning") last.text = last.text.slice(0, Math.ceil(last.text.length / 2));
}
