import type { TypedTraceEvent } from "@rein/trace";
import { callKey } from "./call-records.ts";
import type { TimelineEntry, VerdictView } from "./run-view-model.ts";

type Line = { label: string; durationMs?: number | null; callKey?: string; failed?: boolean };

/**
 * The run's events worth a line, each with its time since the run began and
 * its duration where the event has one (a model call, a tool call, a step
 * attempt from dispatch to its result). Also collects the verdicts.
 */
export class RunTimelineFold {
  private readonly entries: TimelineEntry[] = [];
  private readonly verdicts: VerdictView[] = [];
  private readonly dispatchedAt = new Map<string, number>();
  private start: number | null = null;

  add(event: TypedTraceEvent): void {
    const at = Date.parse(event.ts);
    this.start ??= at;
    if (event.kind === "verdict.ready") this.verdicts.push(verdictOf(event));
    const line = this.lineOf(event, at);
    if (!line) return;
    this.entries.push({
      seq: event.seq,
      at: event.ts,
      offsetMs: at - this.start,
      durationMs: line.durationMs ?? event.durationMs ?? null,
      kind: event.kind,
      stepId: event.stepId,
      label: line.label,
      callKey: line.callKey ?? null,
      failed: line.failed ?? false,
    });
  }

  timeline(): TimelineEntry[] {
    return this.entries;
  }

  verdictList(): VerdictView[] {
    return this.verdicts;
  }

  private lineOf(event: TypedTraceEvent, at: number): Line | undefined {
    switch (event.kind) {
      case "run.submitted":
        return { label: `submitted; tools: ${event.payload.tools.join(", ") || "none"}` };
      case "plan.ready": {
        const { planNo, done, currentStep, nextSteps } = event.payload;
        return {
          label: done
            ? `plan ${planNo}: the goal is met (the evaluator checks the answer)`
            : `plan ${planNo}: ${currentStep ?? "steps side by side"}${nextSteps.length > 0 ? `, then ${nextSteps.join(" → ")}` : ""}`,
        };
      }
      case "step.dispatched":
        if (event.stepId) this.dispatchedAt.set(event.stepId, at);
        return {
          label: `dispatched "${event.payload.title}" attempt ${event.payload.attempt}${event.payload.resume > 0 ? ` (resume ${event.payload.resume})` : ""}`,
        };
      case "step.delegated":
        return { label: `delegated "${event.payload.title}" to ${event.payload.childStepId}: ${event.payload.reason}` };
      case "step.suspended":
        return {
          label: `waiting for ${event.payload.reason === "approval" ? `approval ${event.payload.approvalId ?? "?"}${event.payload.tool ? ` (${event.payload.tool})` : ""}` : `an answer: ${event.payload.question ?? "?"}`}`,
        };
      case "step.resumed":
        return { label: `resumed: approval ${event.payload.approvalId} ${event.payload.decision}` };
      case "step.finished": {
        const started = event.stepId ? this.dispatchedAt.get(event.stepId) : undefined;
        const failed = event.payload.status === "failed" || event.payload.status === "budget_exhausted";
        return {
          label: `finished ${event.payload.status} after ${event.payload.turns} turn(s)${event.payload.error ? `: ${event.payload.error}` : ""}`,
          durationMs: started === undefined ? null : at - started,
          failed,
        };
      }
      case "step.errored":
        return { label: `step could not run: ${event.payload.reason}`, failed: true };
      case "model.responded": {
        const usage = event.usage;
        return {
          label: `${event.payload.role} model ${event.payload.provider}/${event.payload.model} → ${event.payload.stopReason}${usage ? `, ${usage.inputTokens}+${usage.outputTokens} tokens, $${usage.costUsd.toFixed(4)}` : ""}`,
        };
      }
      case "model.failed":
        return { label: `${event.payload.role} model call failed: ${event.payload.error}`, failed: true };
      case "tool.result":
        // The label and the failed mark are the call's (a command's exit, an HTTP status): buildRunView sets them.
        return {
          label: `#${event.payload.index} ${event.payload.name} → ${event.payload.status}`,
          durationMs: event.durationMs ?? event.payload.durationMs,
          callKey: callKey(event.stepId, event.payload.callId, event.payload.index),
        };
      case "approval.decided":
        return {
          label: `approval ${event.payload.approvalId} ${event.payload.decision}${event.payload.approver ? ` by ${event.payload.approver}` : ""}`,
        };
      case "answer.proposed":
        return { label: `final answer proposed (${event.payload.claims} claim(s), ${event.payload.gaps} gap(s)); the evaluator checks it` };
      case "verdict.ready":
        return {
          label: `${event.payload.subject === "final_answer" ? "verdict on the final answer" : "verdict"} ${event.payload.decision}: ${event.payload.reasons.join("; ")}`,
          failed: !["continue", "done"].includes(event.payload.decision),
        };
      case "loop.detected":
        return { label: `loop detected: ${event.payload.description}`, failed: event.payload.blocking };
      case "run.escalated":
        return { label: `escalated: ${event.payload.reasons.join("; ")}` };
      case "run.resumed":
        return { label: `resumed with instruction: ${event.payload.instruction}` };
      case "run.done":
      case "run.failed":
      case "run.cancelled":
        return { label: `run ${event.kind.slice("run.".length)}: ${event.payload.reason}`, failed: event.kind !== "run.done" };
      default:
        return undefined;
    }
  }
}

function verdictOf(event: TypedTraceEvent & { kind: "verdict.ready" }): VerdictView {
  const { decision, reasons, feedback, checks, subject, attempt } = event.payload;
  return {
    seq: event.seq,
    at: event.ts,
    stepId: event.stepId,
    subject: subject ?? "step",
    attempt: attempt ?? null,
    decision,
    reasons,
    feedback,
    checks,
  };
}
