import { findTraceEvent, type TraceKind, type TracePayloadInput, type TypedTraceEvent } from "@rein/trace";
import { traceEventOf } from "@rein/runtime/testing";
import { describe, expect, it } from "vitest";
import { buildRunView } from "../../src/trace/views/run-view/build-run-view.ts";
import { fixtureEvents } from "./fixture-events.ts";

const viewOf = (events: TypedTraceEvent[]) => buildRunView({ runId: "run_fixture", state: null, events, blobs: {} });

describe("the run view's step graph and plan history", () => {
  it("joins a delegated child to its parent and keeps each step's calls, denial and refusal included", () => {
    const view = viewOf(fixtureEvents());
    expect(view.graph.steps.map((step) => [step.stepId, step.parentStepId, step.depth])).toEqual([
      ["s1", null, 0],
      ["s2", "s1", 1],
    ]);
    expect(view.graph.edges).toEqual([{ from: "s1", to: "s2", kind: "delegated" }]);
    const denied = view.calls.find((call) => call.tool === "run_command");
    expect(denied).toMatchObject({
      status: "denied",
      failed: true,
      permission: { decision: "deny", rule: "goal:no-rm" },
      message: "denied by goal:no-rm",
    });
    expect(view.calls.find((call) => call.tool === "ghost_tool")).toMatchObject({ status: "refused", message: "not_on_surface" });
    expect(view.calls.find((call) => call.tool === "deploy")?.approval).toBe("apr_1 approved by cli:alice");
    expect(view.usage.budget).toEqual({ maxSteps: 4, maxTokens: 1000, maxCostUsd: 1 });
    expect(view.usage.byStep).toEqual([
      { name: "s1", usage: expect.objectContaining({ inputTokens: 100, outputTokens: 20 }), modelCalls: 1 },
    ]);
  });

  it("records a replan with the verdict that caused it, a retry as a second attempt, and the next planned step's edge", () => {
    const events = fixtureEvents();
    const end = events.at(-1);
    const dispatched = findTraceEvent(events, "step.dispatched");
    if (!end || !dispatched) throw new Error("the fixture has no run end or no dispatch");
    const later = <Kind extends TraceKind>(kind: Kind, payload: TracePayloadInput<Kind>, stepId: string | null = null): TypedTraceEvent =>
      traceEventOf(kind, payload, { ...end, seq: end.seq + 1, stepId, parentStepId: null });
    const view = viewOf([
      ...events.slice(0, -1),
      later("verdict.ready", { decision: "retry", reasons: ["tests still fail"], feedback: "run them", checks: [] }, "s1"),
      { ...dispatched, payload: { ...dispatched.payload, attempt: 2, feedback: "run them" } },
      later("verdict.ready", { decision: "replan", reasons: ["the approach is wrong"], feedback: null, checks: [] }, "s1"),
      later("plan.ready", { planNo: 2, done: false, currentStep: "Roll back", nextSteps: [], risks: ["data loss"], lessonsUsed: [] }),
      { ...dispatched, stepId: "s3", payload: { ...dispatched.payload, title: "Roll back" } },
      end,
    ]);
    const [first, second] = view.plan.revisions;
    expect(first).toMatchObject({ planNo: 1, trigger: "first", reason: "" });
    expect(second).toMatchObject({ planNo: 2, trigger: "replan", reason: "replan on s1: the approach is wrong", risks: ["data loss"] });
    expect(view.graph.steps.find((step) => step.stepId === "s1")?.attempts.map((attempt) => [attempt.attempt, attempt.feedback])).toEqual([
      [1, null],
      [2, "run them"],
    ]);
    expect(view.graph.edges).toContainEqual({ from: "s1", to: "s3", kind: "next" });
    expect(view.timeline.at(-1)).toMatchObject({ kind: "run.done", failed: false });
  });

  it("shows an HTTP error answer by its status, as a failed call", () => {
    const events = fixtureEvents();
    const end = events.at(-1);
    if (!end) throw new Error("the fixture has no events");
    const base = { callId: "c9", index: 9, tool: "http_request" };
    const at = <Kind extends TraceKind>(seq: number, kind: Kind, payload: TracePayloadInput<Kind>): TypedTraceEvent =>
      traceEventOf(kind, payload, { ...end, seq, stepId: "s1", parentStepId: null });
    const view = viewOf([
      ...events.slice(0, -1),
      at(end.seq, "tool.called", { ...base, idempotencyKey: "k9", argBytes: 30, args: { url: "https://status.example/health" } }),
      at(end.seq + 1, "tool.executed", { ...base, status: "ok", attempts: 1, httpStatus: 404 }),
      at(end.seq + 2, "tool.result", { ...base, name: "http_request", status: "ok", durationMs: 40, attempts: 1 }),
    ]);
    expect(view.unreadable).toEqual([]);
    expect(view.calls.find((call) => call.callId === "c9")).toMatchObject({
      status: "HTTP 404",
      httpStatus: 404,
      failed: true,
      output: "(none recorded)",
    });
    expect(view.timeline.find((entry) => entry.callKey === "s1|c9|9")).toMatchObject({ label: "#9 http_request → HTTP 404", failed: true });
  });
});
