import type { TraceEventOf, TypedTraceEvent } from "@rein/trace";
import { failedExitOf } from "../event-fields.ts";
import type { CallView } from "./run-view-model.ts";

type CallEvent = TraceEventOf<"tool.called">;

/** A tool call is named by step, call id and index; call ids alone repeat across steps and attempts. */
export const callKey = (stepId: string | null, callId: string, index: number): string => `${stepId ?? "-"}|${callId}|${index}`;

/** "HTTP 404" when an http_request answered with an error status: its `httpStatus`, else its rendered output's first line. */
function httpStatusOf(payload: Readonly<Record<string, unknown>>): number | null {
  if (typeof payload.httpStatus === "number") return payload.httpStatus;
  const match = typeof payload.output === "string" ? /^HTTP (\d{3})\b/.exec(payload.output) : null;
  return match ? Number(match[1]) : null;
}

const outputText = (output: unknown): string =>
  typeof output === "string" ? output : output === undefined ? "(none recorded)" : JSON.stringify(output, null, 2);

/**
 * Each tool call of the worker steps with everything the executor recorded
 * about it: input, permission decision and rule, approval, how it ended (a
 * command's exit code, an HTTP status), the output, the observation id and
 * the artifact holding a truncated output. The evaluator's own check
 * commands (`check.` events) are its verdict's checks, not listed here.
 */
export class CallRecordsFold {
  private readonly calls = new Map<string, CallView>();
  private readonly attemptOf = new Map<string, number>();

  add(event: TypedTraceEvent): void {
    if (event.kind === "step.dispatched" && event.stepId) {
      this.attemptOf.set(event.stepId, event.payload.attempt);
      return;
    }
    if (event.kind === "tool.called") {
      this.open(event);
      return;
    }
    const call = this.callOf(event);
    if (!call) return;
    switch (event.kind) {
      case "permission.decided":
        call.permission = { decision: event.payload.decision, rule: event.payload.rule, reason: event.payload.reason };
        break;
      case "approval.requested":
      case "approval.reused":
        call.approval = `${event.kind === "approval.requested" ? "requested" : "still waiting for"} ${event.payload.approvalId} (rule ${event.payload.rule}), expires ${event.payload.expiresAt}`;
        break;
      case "approval.consumed":
        call.approval = `${event.payload.approvalId} approved by ${event.payload.approver ?? "?"}`;
        break;
      case "approval.refused":
        call.approval = `${event.payload.approvalId} ${event.payload.status}${event.payload.approver ? ` by ${event.payload.approver}` : ""}${event.payload.reason ? `: ${event.payload.reason}` : ""}`;
        break;
      case "approval.forged":
        call.approval = `${event.payload.approvalId} refused as forged: ${event.payload.problem}`;
        break;
      case "approval.unavailable":
        call.approval = `no approval desk for rule ${event.payload.rule}`;
        break;
      case "tool.refused":
      case "tool.input_invalid":
      case "tool.budget_exhausted":
        call.message = event.payload.reason;
        break;
      case "secret.refused":
        call.message = `secret ${event.payload.secret} refused: ${event.payload.reason}`;
        break;
      case "tool.executed": {
        const exitCode = event.payload.exitCode;
        call.exitCode = typeof exitCode === "number" ? exitCode : null;
        call.httpStatus = httpStatusOf(event.payload);
        call.output = outputText(event.payload.output);
        const exit = failedExitOf(event.payload);
        if (exit) call.status = exit;
        else if (call.httpStatus !== null && call.httpStatus >= 400) call.status = `HTTP ${call.httpStatus}`;
        break;
      }
      case "observation.truncated":
        call.truncated = true;
        call.artifactId = event.payload.artifactId;
        break;
      case "tool.result": {
        const { status, durationMs, artifactId, message } = event.payload;
        call.outcome = status;
        call.durationMs = event.durationMs ?? durationMs;
        call.artifactId = artifactId ?? call.artifactId;
        call.message = message ?? call.message;
        // A command that ran and exited non-zero is an "ok" call: its status says how it exited.
        if (status !== "ok" || call.status === "no result") call.status = status === "ok" ? "ok" : status;
        // Waiting for a person is not a failure: the call runs again once approved.
        call.failed = status !== "pending_approval" && call.status !== "ok";
        break;
      }
      case "observation.made":
        call.observationId = event.payload.observationId;
        break;
    }
  }

  result(): CallView[] {
    return [...this.calls.values()];
  }

  private open(event: CallEvent): void {
    const { callId, index, tool, args, argBytes } = event.payload;
    const key = callKey(event.stepId, callId, index);
    this.calls.set(key, {
      key,
      callId,
      stepId: event.stepId,
      attempt: event.stepId ? (this.attemptOf.get(event.stepId) ?? null) : null,
      index,
      tool,
      seq: event.seq,
      at: event.ts,
      input: args ?? null,
      inputBytes: argBytes,
      status: "no result",
      outcome: null,
      failed: false,
      exitCode: null,
      httpStatus: null,
      durationMs: null,
      permission: null,
      approval: null,
      message: null,
      output: null,
      observationId: null,
      presented: null,
      artifactId: null,
      truncated: false,
    });
  }

  private callOf(event: TypedTraceEvent): CallView | undefined {
    if (!("callId" in event.payload) || !("index" in event.payload) || event.kind.startsWith("check.")) return undefined;
    return this.calls.get(callKey(event.stepId, event.payload.callId, event.payload.index));
  }
}
