import type { LiveEvent, TraceEvent } from "@rein/core";
import { failedExitOf } from "../trace/views/event-fields.ts";

const str = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

/**
 * What progress remembers between events of one run: the exit of each
 * executed call and the rule that denied a call, by step and call id, which its
 * `tool.result` line then shows.
 */
export type ProgressMemory = Map<string, string>;

/** One human line per trace event worth showing live; undefined hides it. */
export function describeEvent(event: TraceEvent, memory: ProgressMemory = new Map()): string | undefined {
  const p = event.payload as Record<string, unknown>;
  const step = event.stepId ? `[${event.stepId}] ` : "";
  switch (event.kind) {
    case "run.submitted": {
      const unpriced = Array.isArray(p.unpriced) ? (p.unpriced as string[]) : [];
      const warning = unpriced.length > 0 ? `\n  ! price unknown for ${unpriced.join("; ")}: their calls count $0, so the $${str((p.budget as { maxCostUsd?: unknown } | undefined)?.maxCostUsd)} cost budget cannot see them (add config prices)` : "";
      return `▶ run ${event.runId} submitted: ${str(p.goal)}${warning}`;
    }
    case "model.responded":
      return p.price === "unknown" ? `${step}  ? ${str(p.role)} call to ${str(p.provider)}/${str(p.model)}: price unknown, cost not counted` : undefined;
    case "plan.requested":
      return `… planning (plan ${str(p.planNo)})`;
    case "lesson.used":
      return `  lessons used: ${str(p.lessons)}`;
    case "plan.ready":
      return p.done
        ? "✓ plan: the planner proposes the goal is met; the evaluator checks its answer"
        : `✓ plan: "${str(p.currentStep)}"${(p.nextSteps as string[]).length > 0 ? `; then: ${(p.nextSteps as string[]).join(" → ")}` : ""}`;
    case "model.output_invalid":
      return `  ! ${str(p.role)} output invalid (attempt ${str(p.attempt)}): ${str(p.problem)}`;
    case "step.dispatched":
      return `${step}→ dispatched "${str(p.title)}" (attempt ${str(p.attempt)}${Number(p.resume) > 0 ? `, resume ${str(p.resume)}` : ""}) tools: ${(p.tools as string[]).join(", ") || "none"}`;
    case "step.started":
      return `${step}  started`;
    case "step.suspended":
      return `${step}⏸ waiting for approval ${str(p.approvalId)} (${str(p.tool)}): rein approve ${str(p.approvalId)}  |  rein deny ${str(p.approvalId)} --reason "…"`;
    case "step.resumed":
      return `${step}▶ resumed after approval ${str(p.approvalId)}: ${str(p.decision)}`;
    case "step.finished":
      return `${step}■ step ${str(p.status)} after ${str(p.turns)} turn(s)${p.error ? `: ${str(p.error)}` : ""}`;
    case "loop.detected":
      return `${step}  ! loop detected (${str(p.kind)})`;
    case "answer.proposed":
      return `… the evaluator checks the planner's answer (${str(p.claims)} claim(s), ${str(p.gaps)} gap(s))`;
    case "verdict.ready":
      return `${step}⚖ ${p.subject === "final_answer" ? "verdict on the final answer" : "verdict"}: ${str(p.decision)}: ${(p.reasons as string[]).join("; ")}`;
    case "packet.refused":
      return `${step}✗ packet refused: ${str(p.reason)}`;
    case "model.failed":
      return `${step}  ✗ ${str(p.role)} model call failed: ${str(p.error)}`;
    case "run.done":
      return `✔ run done: ${str(p.reason)}`;
    case "run.failed":
      return `✗ run failed: ${str(p.reason)}`;
    case "run.cancelled":
      return `✗ run cancelled: ${str(p.reason)}`;
    case "run.escalated":
      return `⚑ run escalated to a person: ${(p.reasons as string[]).join("; ")} — reply with: rein reply ${event.runId} "<instruction>"`;
    default:
      return describeToolEvent(event, step, p, memory);
  }
}

function describeToolEvent(event: TraceEvent, step: string, p: Record<string, unknown>, memory: ProgressMemory): string | undefined {
  if (!event.kind.startsWith("tool.") && !event.kind.startsWith("approval.") && event.kind !== "permission.decided") return undefined;
  const name = str(p.tool ?? p.name ?? "");
  // Call ids repeat across steps and attempts; within one step's events in order, step and id name one call.
  const callKey = `${event.stepId ?? "-"}|${str(p.callId)}`;
  switch (event.kind) {
    case "tool.called":
      return `${step}  ⚙ ${name}(${truncate(str(p.args ?? {}), 120)})`;
    case "tool.executed": {
      // The call's one line is its tool.result; a command's exit goes into it.
      const exit = failedExitOf(p);
      if (exit) memory.set(callKey, exit);
      return undefined;
    }
    case "tool.result": {
      const exit = memory.get(callKey);
      const denial = memory.get(`denied:${callKey}`);
      if (p.status === "denied" && denial) return `${step}    ↳ denied ${denial}`;
      const status = p.status === "ok" && exit ? exit : str(p.status);
      return `${step}    ↳ ${status}${typeof p.durationMs === "number" ? ` in ${Math.round(p.durationMs)} ms` : ""}${p.message ? `: ${truncate(str(p.message), 160)}` : ""}`;
    }
    case "permission.decided": {
      const why = `by ${str(p.rule)}: ${str(p.reason)}`;
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
 * What a live event adds to a terminal: model text as it streams, dimmed;
 * and when a call is retried mid-stream, a line saying the text shown for
 * that call so far is void, so nobody reads a half-answer as the answer.
 * A call's start and end add nothing here: the ticker shows calls in flight.
 */
export function describeLiveEvent(event: LiveEvent): string {
  switch (event.type) {
    case "text_delta":
      return `\x1b[2m${event.text}\x1b[0m`;
    case "retry": {
      const who = `${event.stepId ? `[${event.stepId}] ` : ""}${event.role}`;
      return `\n  ↻ ${who} model call retried (attempt ${event.attempt}, ${event.reason}): discard the partial output above\n`;
    }
    default:
      return "";
  }
}

export const FINAL_KINDS = new Set(["run.done", "run.failed", "run.cancelled", "run.escalated"]);
