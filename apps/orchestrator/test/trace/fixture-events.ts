import type { TraceKind, TracePayloadInput, TypedTraceEvent } from "@rein/trace";
import { type TraceEnvelope, traceEventOf } from "@rein/runtime/testing";

let seq = 0;
const hash = (digit: string) => `sha256:${digit.repeat(64)}`;

function event<Kind extends TraceKind>(kind: Kind, payload: TracePayloadInput<Kind>, extra: TraceEnvelope = {}): TypedTraceEvent {
  seq += 1;
  return traceEventOf(kind, payload, {
    seq,
    ts: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, seq * 100)).toISOString(),
    runId: "run_fixture",
    ...extra,
  });
}

/**
 * A small run with a delegated child step, a denied call, an approval a
 * person decided, and a refusal before the policy: every branch the views draw.
 */
export function fixtureEvents(): TypedTraceEvent[] {
  seq = 0;
  const s1 = { stepId: "s1" };
  const s2 = { stepId: "s2", parentStepId: "s1" };
  const call = (step: TraceEnvelope, callId: string, index: number, tool: string) => ({ step, base: { callId, index, tool } });
  const read = call(s1, "c0", 0, "read_file");
  const denied = call(s1, "c1", 1, "run_command");
  const deploy = call(s2, "c0", 0, "deploy");
  const ghost = call(s2, "c1", 1, "ghost_tool");
  const called = { idempotencyKey: "run_fixture:s:1:0", argBytes: 2 };
  const dispatched = { attempt: 1, resume: 0, depth: 0, packetHash: hash("d"), packet: {}, scopes: {}, evidence: [], feedback: null };
  return [
    event("run.submitted", {
      goal: "fix it",
      tools: ["read_file", "run_command", "deploy"],
      budget: { maxSteps: 4, maxTokens: 1000, maxCostUsd: 1 },
    }),
    event("plan.ready", { planNo: 1, done: false, currentStep: "Investigate", nextSteps: ["Deploy"], risks: ["prod"], lessonsUsed: [] }),
    event("step.dispatched", { ...dispatched, title: "Investigate", tools: ["read_file", "run_command"] }, s1),
    event(
      "model.responded",
      { role: "worker", provider: "scripted", model: "m1", stopReason: "tool_use", retries: 0, requestId: null, content: [] },
      {
        ...s1,
        durationMs: 12,
        usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.0012 },
      },
    ),
    event("tool.called", { ...read.base, ...called, args: { path: "a.txt" } }, s1),
    event(
      "permission.decided",
      { ...read.base, decision: "allow", rule: "default:read", reason: "read-only tools run by default", effect: "read", scope: {} },
      s1,
    ),
    event(
      "tool.result",
      { ...read.base, name: "read_file", status: "ok", durationMs: 1.5, attempts: 1, rawOutputHash: hash("a") },
      { ...s1, durationMs: 1.5 },
    ),
    event("tool.called", { ...denied.base, ...called, args: { command: "rm" } }, s1),
    event(
      "permission.decided",
      { ...denied.base, decision: "deny", rule: "goal:no-rm", reason: "never delete", effect: "write", scope: {} },
      s1,
    ),
    event(
      "tool.result",
      { ...denied.base, name: "run_command", status: "denied", durationMs: 0, attempts: 1, message: "denied by goal:no-rm" },
      s1,
    ),
    event("step.dispatched", { ...dispatched, title: "Deploy fix", depth: 1, tools: ["deploy"] }, s2),
    event("tool.called", { ...deploy.base, ...called, args: { env: "prod" } }, s2),
    event(
      "permission.decided",
      {
        ...deploy.base,
        decision: "ask",
        rule: "default:external",
        reason: "external effects need approval",
        effect: "external",
        scope: {},
      },
      s2,
    ),
    event(
      "approval.requested",
      {
        ...deploy.base,
        approvalId: "apr_1",
        actionHash: hash("c"),
        rule: "default:external",
        status: "pending",
        expiresAt: "2026-01-01T01:00:00.000Z",
      },
      s2,
    ),
    event("step.suspended", { reason: "approval", approvalId: "apr_1", tool: "deploy" }, s2),
    event(
      "approval.decided",
      {
        approvalId: "apr_1",
        tool: "deploy",
        actionHash: hash("c"),
        decision: "approved",
        approver: "cli:alice",
        note: "ok",
        reason: null,
        decidedAt: "2026-01-01T00:10:00.000Z",
      },
      s2,
    ),
    event(
      "approval.consumed",
      { ...deploy.base, approvalId: "apr_1", actionHash: hash("c"), status: "consumed", rule: "default:external", approver: "cli:alice" },
      s2,
    ),
    event("tool.result", { ...deploy.base, name: "deploy", status: "ok", durationMs: 3, attempts: 1, rawOutputHash: hash("b") }, s2),
    event("tool.called", { ...ghost.base, ...called, args: {} }, s2),
    event("tool.refused", { ...ghost.base, reason: "not_on_surface", allowed: ["deploy"] }, s2),
    event("tool.result", { ...ghost.base, name: "ghost_tool", status: "refused", durationMs: 0, attempts: 1 }, s2),
    event(
      "verdict.ready",
      { decision: "continue", reasons: ["all checks passed"], feedback: null, checks: [{ check: "deployed", passed: true, detail: "ok" }] },
      s2,
    ),
    event("verdict.ready", { decision: "continue", reasons: ["child done"], feedback: null, checks: [] }, s1),
    event("run.done", { reason: "the evaluator verified the answer", partial: false, missing: [] }),
  ];
}
