import { ReinError } from "@rein/contracts";
import { type CallTraceEvent, isCallTraceEvent, isTraceEventOf, PromptCopy } from "@rein/trace";
import { z } from "zod";
import type { TraceBundle } from "../trace-bundle.ts";
import { callKeyOf, failedExitOf, text } from "./event-fields.ts";

/** A message blob as the prompt copy stores it, as far as a tool result in it goes. */
const StoredMessage = z.object({ content: z.array(z.unknown()) });
const ToolResultPart = z.object({ type: z.literal("tool_result"), toolCallId: z.string(), content: z.string() });

/** One use of a call id: what `rein trace --call` prints and `GET /runs/:id/calls/:callId` returns. */
export interface CallUse {
  callId: string;
  stepId: string | null;
  index: number;
  tool: string;
  /** "ok", "exit 1", "killed by SIGKILL", the result's status, or "no result". */
  status: string;
  exitCode: number | null;
  durationMs: number | null;
  decision: { decision: string; rule: string; reason: string } | null;
  message: string | null;
  input: unknown;
  /** The output as the tool returned it; null when the call was not executed. */
  output: string | null;
  /** The tool result the model read next; null when no prompt copy holds it. */
  presented: string | null;
}

/**
 * One tool call of a run, for a person asking what exactly happened: the
 * input, the decision that let it through, how it ended (a command's exit),
 * the output as the tool returned it, and the text the model was shown.
 * A call id can repeat across steps and attempts; each use is described.
 */
export function describeCall(bundle: TraceBundle, callId: string): CallUse[] {
  const uses = new Map<string, [CallTraceEvent, ...CallTraceEvent[]]>();
  for (const event of bundle.events) {
    if (!isCallTraceEvent(event) || event.payload.callId !== callId || !isCallEvent(event.kind)) continue;
    const key = callKeyOf(event);
    const use = uses.get(key);
    if (use) use.push(event);
    else uses.set(key, [event]);
  }
  if (uses.size === 0) {
    const known = [...new Set(bundle.events.flatMap((event) => (event.kind === "tool.called" ? [event.payload.callId] : [])))];
    throw new ReinError("not_found", `run ${bundle.runId} has no call ${callId}; its calls: ${known.join(", ") || "none"}`);
  }
  return [...uses.values()].map((events) => describeUse(bundle, callId, events));
}

/** `rein trace --call`: each use of the call as text. */
export function renderCall(bundle: TraceBundle, callId: string): string {
  return describeCall(bundle, callId).map(renderUse).join("\n");
}

const isCallEvent = (kind: string) => kind.startsWith("tool.") || kind === "permission.decided" || kind === "observation.made";

function describeUse(bundle: TraceBundle, callId: string, [first, ...rest]: readonly [CallTraceEvent, ...CallTraceEvent[]]): CallUse {
  const events = [first, ...rest];
  const called = events.find((event) => isTraceEventOf(event, "tool.called"))?.payload;
  const executed = events.find((event) => isTraceEventOf(event, "tool.executed"))?.payload;
  const result = events.find((event) => isTraceEventOf(event, "tool.result"))?.payload;
  const decision = events.find((event) => isTraceEventOf(event, "permission.decided"))?.payload;
  return {
    callId,
    stepId: first.stepId,
    index: first.payload.index,
    tool: called?.tool ?? first.payload.tool,
    status: result?.status === "ok" && executed ? (failedExitOf(executed) ?? "ok") : (result?.status ?? "no result"),
    exitCode: typeof executed?.exitCode === "number" ? executed.exitCode : null,
    durationMs: result?.durationMs ?? null,
    decision: decision ? { decision: decision.decision, rule: decision.rule, reason: decision.reason } : null,
    message: result?.message || null,
    input: called?.args ?? null,
    output: executed ? text(executed.output, "(none recorded)") : null,
    presented: presentedToModel(bundle, first.stepId, callId, first.seq) ?? null,
  };
}

function renderUse(use: CallUse): string {
  const duration = use.durationMs === null ? "" : `, ${Math.round(use.durationMs)} ms`;
  const lines = [`call ${use.callId} in step ${use.stepId ?? "-"} (#${text(use.index)}): ${use.tool} → ${use.status}${duration}`];
  if (use.decision) lines.push(`decision: ${use.decision.decision} by ${use.decision.rule}: ${use.decision.reason}`);
  if (use.message !== null) lines.push(`message: ${use.message}`);
  lines.push("input:", indent(JSON.stringify(use.input, null, 2)));
  lines.push("output:", indent(use.output ?? "(not executed)"));
  if (use.presented === null) lines.push("shown to the model: (not in the trace's prompt copies)");
  else lines.push("shown to the model:", indent(use.presented));
  return `${lines.join("\n")}\n`;
}

/** The tool result the model read next in that step: from the first prompt copy after the call that holds it. */
export function presentedToModel(
  bundle: Pick<TraceBundle, "events" | "blobs">,
  stepId: string | null,
  callId: string,
  after: number,
): string | undefined {
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
