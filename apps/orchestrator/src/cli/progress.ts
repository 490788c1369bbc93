import type { LiveEvent } from "@rein/runtime";
import { type CallTraceEvent, isCallTraceEvent, type TypedTraceEvent } from "@rein/trace";
import { failedExitOf } from "../trace/views/event-fields.ts";

const str = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

/**
 * What progress remembers between events of one run: the exit of each
 * executed call and the rule that denied a call, by step and call id, which its
 * `tool.result` line then shows.
 */
export type ProgressMemory = Map<string, string>;

/** One human line per trace event worth showing live; undefined hides it. */
export function describeEvent(event: TypedTraceEvent, memory: ProgressMemory = new Map()): string | undefined {
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
      return p.done
        ? "✓ plan: the planner proposes the goal is met; the evaluator checks its answer"
        : `✓ plan: "${str(p.currentStep)}"${p.nextSteps.length > 0 ? `; then: ${p.nextSteps.join(" → ")}` : ""}`;
    }
    case "model.output_invalid": {
      const p = event.payload;
      return `  ! ${str(p.role)} output invalid (attempt ${str(p.attempt)}): ${str(p.problem)}`;
    }
    case "step.dispatched": {
      const p = event.payload;
      return `${step}→ dispatched "${str(p.title)}" (attempt ${str(p.attempt)}${p.resume > 0 ? `, resume ${str(p.resume)}` : ""}) tools: ${p.tools.join(", ") || "none"}`;
    }
    case "step.started":
      return `${step}  started`;
    case "step.suspended": {
      const p = event.payload;
      return `${step}⏸ waiting for approval ${str(p.approvalId)} (${str(p.tool)}): rein approve ${str(p.approvalId)}  |  rein deny ${str(p.approvalId)} --reason "…"`;
    }
    case "step.resumed":
      return `${step}▶ resumed after approval ${str(event.payload.approvalId)}: ${str(event.payload.decision)}`;
    case "step.finished": {
      const p = event.payload;
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
      return `${step}  ⚙ ${event.payload.tool}(${truncate(str(event.payload.args ?? {}), 120)})`;
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
