import type { CallInFlight, LiveEvent } from "@rein/runtime";
import { type CallTraceEvent, isCallTraceEvent, type TypedTraceEvent } from "@rein/trace";
import { failedExitOf } from "../trace/views/event-fields.ts";
import { describeGroupEvent } from "../trace/views/group-lines.ts";

const str = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

/**
 * What progress remembers between events of one run: the exit of each
 * executed call and the rule that denied a call, by step and call id, which its
 * `tool.result` line then shows.
 */
export type ProgressMemory = Map<string, string>;

/**
 * One human line per trace event worth showing live; undefined hides it.
 * A step's `started` is shown before the first thing its worker did:
 * `step.started` is written with the step's result, after its calls.
 */
export function describeEvent(event: TypedTraceEvent, memory: ProgressMemory = new Map()): string | undefined {
  const line = describeOne(event, memory);
  if (!event.stepId || !byWorker(event)) return line;
  return withStarted(event.stepId, line, memory);
}

/** The worker's own events of a step: its context, its model calls, its tool calls. */
function byWorker(event: TypedTraceEvent): boolean {
  if (WORKER_KINDS.has(event.kind) || isCallTraceEvent(event)) return true;
  return event.kind.startsWith("model.") && "role" in event.payload && event.payload.role === "worker";
}
const WORKER_KINDS: ReadonlySet<string> = new Set([
  "step.tools_withheld",
  "step.tool_schemas",
  "step.checkpoint_restored",
  "context.compacted",
]);

/** `line`, after the step's `started` when the step was dispatched and nothing of it has been shown as started since. */
function withStarted(stepId: string, line: string | undefined, memory: ProgressMemory): string | undefined {
  const key = `started:${stepId}`;
  if (memory.get(key) !== "pending") return line;
  memory.set(key, "shown");
  const started = `[${stepId}]   started`;
  return line === undefined ? started : `${started}\n${line}`;
}

function describeOne(event: TypedTraceEvent, memory: ProgressMemory): string | undefined {
  const step = event.stepId ? `[${event.stepId}] ` : "";
  switch (event.kind) {
    case "run.submitted": {
      const p = event.payload;
      const unpriced = p.unpriced ?? [];
      const warning =
        unpriced.length > 0
          ? `\n  ! price unknown for ${unpriced.join("; ")}: their calls count $0, so the $${str(p.budget.maxCostUsd)} cost budget cannot see them (add config prices)`
          : "";
      return `▶ run ${event.runId} submitted: ${str(p.goal)}${warning}`;
    }
    case "model.responded": {
      const p = event.payload;
      return p.price === "unknown"
        ? `${step}  ? ${str(p.role)} call to ${str(p.provider)}/${str(p.model)}: price unknown, cost not counted`
        : undefined;
    }
    case "plan.requested":
      return `… planning (plan ${str(event.payload.planNo)})`;
    case "lesson.used":
      return `  lessons used: ${str(event.payload.lessons)}`;
    case "plan.ready": {
      const p = event.payload;
      // No current step and not done: the plan is a parallel group, shown by its group.started line.
      const current = p.currentStep === null ? "steps side by side (below)" : `"${p.currentStep}"`;
      return p.done
        ? "✓ plan: the planner proposes the goal is met; the evaluator checks its answer"
        : `✓ plan: ${current}${p.nextSteps.length > 0 ? `; then: ${p.nextSteps.join(" → ")}` : ""}`;
    }
    case "model.output_invalid": {
      const p = event.payload;
      return `  ! ${str(p.role)} output invalid (attempt ${str(p.attempt)}): ${str(p.problem)}`;
    }
    case "step.dispatched": {
      const p = event.payload;
      // A new attempt (or a resume) starts again.
      if (event.stepId) memory.set(`started:${event.stepId}`, "pending");
      return `${step}→ dispatched "${str(p.title)}" (attempt ${str(p.attempt)}${p.resume > 0 ? `, resume ${str(p.resume)}` : ""}) tools: ${p.tools.join(", ") || "none"}`;
    }
    case "step.started":
      if (event.stepId && memory.get(`started:${event.stepId}`) === "shown") return undefined;
      if (event.stepId) memory.set(`started:${event.stepId}`, "shown");
      return `${step}  started`;
    case "step.suspended": {
      const p = event.payload;
      return `${step}⏸ waiting for approval ${str(p.approvalId)} (${str(p.tool)}): rein approve ${str(p.approvalId)}  |  rein deny ${str(p.approvalId)} --reason "…"`;
    }
    case "step.resumed":
      return `${step}▶ resumed after approval ${str(event.payload.approvalId)}: ${str(event.payload.decision)}`;
    case "step.finished": {
      const p = event.payload;
      // What the evaluator then does for the step is not its start.
      if (event.stepId) memory.set(`started:${event.stepId}`, "shown");
      return `${step}■ step ${str(p.status)} after ${str(p.turns)} turn(s)${p.error ? `: ${str(p.error)}` : ""}`;
    }
    case "loop.detected":
      return `${step}  ! loop detected (${str(event.payload.kind)})`;
    case "answer.proposed":
      return `… the evaluator checks the planner's answer (${str(event.payload.claims)} claim(s), ${str(event.payload.gaps)} gap(s))`;
    case "verdict.ready": {
      const p = event.payload;
      return `${step}⚖ ${p.subject === "final_answer" ? "verdict on the final answer" : "verdict"}: ${str(p.decision)}: ${p.reasons.join("; ")}`;
    }
    case "packet.refused":
      return `${step}✗ packet refused: ${str(event.payload.reason)}`;
    case "model.failed":
      return `${step}  ✗ ${str(event.payload.role)} model call failed: ${str(event.payload.error)}`;
    case "run.redriven":
      return `↻ lost and sent again: ${event.payload.jobs.map((job) => job.key).join(", ")} (${str(event.payload.reason)})`;
    case "group.started":
    case "group.joined":
    case "usage.counted":
      return describeGroupEvent(event, memory);
    case "run.done":
      return `✔ run done: ${str(event.payload.reason)}`;
    case "run.failed":
      return `✗ run failed: ${str(event.payload.reason)}`;
    case "run.cancelled":
      return `✗ run cancelled: ${str(event.payload.reason)}`;
    case "run.escalated":
      return `⚑ run escalated to a person: ${event.payload.reasons.join("; ")} — reply with: rein reply ${event.runId} "<instruction>"`;
    default:
      return isCallTraceEvent(event) ? describeCallEvent(event, step, memory) : undefined;
  }
}

function describeCallEvent(event: CallTraceEvent, step: string, memory: ProgressMemory): string | undefined {
  // Call ids repeat across steps and attempts; within one step's events in order, step and id name one call.
  const callKey = `${event.stepId ?? "-"}|${event.payload.callId}`;
  switch (event.kind) {
    case "tool.called":
      // Shown when it started, from the live channel; this durable copy comes after the call ended.
      if (memory.delete(`live:${callKey}`)) return undefined;
      return callLine(step, event.payload.tool, event.payload.args);
    case "tool.executed": {
      // The call's one line is its tool.result; a command's exit goes into it.
      const exit = failedExitOf(event.payload);
      if (exit) memory.set(callKey, exit);
      return undefined;
    }
    case "tool.result": {
      const p = event.payload;
      const exit = memory.get(callKey);
      const denial = memory.get(`denied:${callKey}`);
      if (p.status === "denied" && denial) return `${step}    ↳ denied ${denial}`;
      const status = p.status === "ok" && exit ? exit : p.status;
      return `${step}    ↳ ${status} in ${Math.round(p.durationMs)} ms${p.message ? `: ${truncate(p.message, 160)}` : ""}`;
    }
    case "permission.decided": {
      const p = event.payload;
      const why = `by ${p.rule}: ${p.reason}`;
      // A denial ends the call: its result line says so, with this rule and reason. An ask is shown now: the step waits on it.
      if (p.decision === "deny") memory.set(`denied:${callKey}`, why);
      return p.decision === "ask" ? `${step}    ⛨ needs approval ${why}` : undefined;
    }
    default:
      // Refusals, cache hits, approvals used or refused: each call's tool.result line says how it ended, and why.
      return undefined;
  }
}

const callLine = (step: string, tool: string, args: unknown): string => `${step}  ⚙ ${tool}(${truncate(str(args ?? {}), 120)})`;

/**
 * A line for a tool call the live channel says is running, before its
 * turn's write makes it durable (a call can run for minutes): its start,
 * after which its durable `tool.called` is not shown again, and the
 * progress it reports. Undefined for every other live event.
 */
export function describeLiveCall(event: LiveEvent, memory: ProgressMemory): string | undefined {
  if (!event.stepId) return undefined;
  const step = `[${event.stepId}] `;
  switch (event.type) {
    case "tool_started":
      return callStarted(event.stepId, event, memory);
    case "tool_progress": {
      // A follower that joined after the call started hears of it first here.
      const start = callStarted(event.stepId, event, memory);
      const of = event.total === undefined ? `${event.progress}` : `${event.progress}/${event.total}`;
      const line = `${step}    … ${event.tool} ${of}${event.message ? `: ${truncate(event.message, 120)}` : ""}`;
      return start === undefined ? line : `${start}\n${line}`;
    }
    default:
      return undefined;
  }
}

/** A call running when the follow began (`live.calls`), shown after its step's dispatch like one heard starting. */
export function describeCallInFlight(call: CallInFlight, memory: ProgressMemory): string | undefined {
  return callStarted(call.stepId, call, memory);
}

/** The call's start line, once per step and call id; its durable `tool.called` is then not shown again. */
function callStarted(stepId: string, call: { callId: string; tool: string; args?: unknown }, memory: ProgressMemory): string | undefined {
  const key = `live:${stepId}|${call.callId}`;
  if (memory.has(key)) return undefined;
  memory.set(key, "shown");
  return withStarted(stepId, callLine(`[${stepId}] `, call.tool, call.args), memory);
}

const truncate = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/**
 * What a live event adds to a terminal: model text as it streams, dimmed,
 * and its thinking dimmed and in italics; and when a call is retried mid-stream, a line saying the text shown for
 * that call so far is void, so nobody reads a half-answer as the answer.
 * A call's start and end add nothing here: the ticker shows calls in flight.
 */
export function describeLiveEvent(event: LiveEvent): string {
  switch (event.type) {
    case "text_delta":
      return `\x1b[2m${event.text}\x1b[0m`;
    case "thinking_delta":
      return `\x1b[2;3m${event.text}\x1b[0m`;
    case "retry": {
      const who = `${event.stepId ? `[${event.stepId}] ` : ""}${event.role}`;
      return `\n  ↻ ${who} model call retried (attempt ${event.attempt}, ${event.reason}): discard the partial output above\n`;
    }
    default:
      return "";
  }
}
