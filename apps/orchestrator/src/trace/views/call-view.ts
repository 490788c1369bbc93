import { PromptCopy, ReinError, type TraceEvent } from "@rein/core";
import { z } from "zod";
import type { TraceBundle } from "../trace-bundle.ts";
import { callKeyOf, failedExitOf, text } from "./event-fields.ts";

/** A message blob as the prompt copy stores it, as far as a tool result in it goes. */
const StoredMessage = z.object({ content: z.array(z.unknown()) });
const ToolResultPart = z.object({ type: z.literal("tool_result"), toolCallId: z.string(), content: z.string() });

/**
 * One tool call of a run, for a person asking what exactly happened: the
 * input, the decision that let it through, how it ended (a command's exit),
 * the output as the tool returned it, and the text the model was shown.
 * A call id can repeat across steps and attempts; each use is shown.
 */
export function renderCall(bundle: TraceBundle, callId: string): string {
  const uses = new Map<string, TraceEvent[]>();
  for (const event of bundle.events) {
    if (event.payload.callId !== callId || !isCallEvent(event.kind)) continue;
    const key = callKeyOf(event);
    uses.set(key, [...(uses.get(key) ?? []), event]);
  }
  if (uses.size === 0) {
    const known = [...new Set(bundle.events.filter((event) => event.kind === "tool.called").map((event) => text(event.payload.callId)))];
    throw new ReinError("not_found", `run ${bundle.runId} has no call ${callId}; its calls: ${known.join(", ") || "none"}`);
  }
  return [...uses.values()].map((events) => renderUse(bundle, callId, events)).join("\n");
}

const isCallEvent = (kind: string) => kind.startsWith("tool.") || kind === "permission.decided" || kind === "observation.made";

function renderUse(bundle: TraceBundle, callId: string, events: readonly TraceEvent[]): string {
  const first = events[0] as TraceEvent;
  const find = (kind: string) => events.find((event) => event.kind === kind)?.payload;
  const called = find("tool.called");
  const executed = find("tool.executed");
  const result = find("tool.result");
  const decision = find("permission.decided");
  const status = result?.status === "ok" && executed ? (failedExitOf(executed) ?? "ok") : text(result?.status, "no result");
  const duration = typeof result?.durationMs === "number" ? `, ${Math.round(result.durationMs)} ms` : "";
  const lines = [`call ${callId} in step ${first.stepId ?? "-"} (#${text(first.payload.index)}): ${text(called?.tool ?? first.payload.tool)} → ${status}${duration}`];
  if (decision) lines.push(`decision: ${text(decision.decision)} by ${text(decision.rule)}: ${text(decision.reason)}`);
  if (result?.message) lines.push(`message: ${text(result.message)}`);
  lines.push("input:", indent(JSON.stringify(called?.args ?? null, null, 2)));
  lines.push("output:", indent(executed ? text(executed.output, "(none recorded)") : "(not executed)"));
  const shown = presented(bundle, first.stepId, callId, first.seq);
  if (shown === undefined) lines.push("shown to the model: (not in the trace's prompt copies)");
  else lines.push("shown to the model:", indent(shown));
  return `${lines.join("\n")}\n`;
}

/** The tool result the model read next in that step: from the first prompt copy after the call that holds it. */
function presented(bundle: TraceBundle, stepId: string | null, callId: string, after: number): string | undefined {
  for (const event of bundle.events) {
    if (event.kind !== "model.called" || event.stepId !== stepId || event.seq < after) continue;
    const prompt = PromptCopy.safeParse(event.payload.prompt);
    for (const hash of prompt.success ? prompt.data.messages : []) {
      const blob = bundle.blobs[hash];
      const message = blob === undefined ? undefined : StoredMessage.safeParse(JSON.parse(blob));
      for (const part of message?.success ? message.data.content : []) {
        const toolResult = ToolResultPart.safeParse(part);
        if (toolResult.success && toolResult.data.toolCallId === callId) return toolResult.data.content;
      }
    }
  }
  return undefined;
}

const indent = (body: string) =>
  body
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n");
