import { describe, expect, it } from "vitest";
import { TraceEvent } from "@rein/contracts/run";
import { callEvents } from "../src/catalogue/call-events.ts";
import {
  asCheckEvent,
  isTraceKind,
  TRACE_AREAS,
  type TraceEventBody,
  type TraceEventInput,
  traceCatalogue,
} from "../src/trace-catalogue.ts";
import { typedTraceEvent } from "../src/typed-trace-event.ts";

const envelope = { schemaVersion: 1 as const, seq: 7, ts: "2026-01-01T00:00:00.000Z", runId: "run_a", stepId: "s1", parentStepId: null };
const called = { callId: "c1", tool: "read_file", index: 0, idempotencyKey: "run_a:s1:1:0", argBytes: 2, args: {} };

describe("the trace catalogue", () => {
  it("lists each kind once: no area silently redefines another's kind", () => {
    const names = TRACE_AREAS.flatMap((area) => Object.keys(area.kinds));
    expect(new Set(names).size).toBe(names.length);
    expect(Object.keys(traceCatalogue)).toHaveLength(names.length + Object.keys(callEvents).length);
  });

  it("names every kind noun.action, as the event envelope requires", () => {
    for (const kind of Object.keys(traceCatalogue)) {
      expect(TraceEvent.shape.kind.safeParse(kind).success, kind).toBe(true);
    }
  });

  it("records an evaluator check's calls under check., with the executor's payloads", () => {
    for (const kind of Object.keys(callEvents)) expect(isTraceKind(`check.${kind}`), kind).toBe(true);
    const event = asCheckEvent({ runId: "run_a", kind: "tool.called", payload: called });
    expect(event.kind).toBe("check.tool.called");
    expect(() => asCheckEvent({ runId: "run_a", kind: "step.started", payload: { attempt: 1 } })).toThrow(/no check\. form/);
  });
});

describe("a producer's kind and payload (TraceEventBody)", () => {
  // How Draft.trace, the evaluator and the plugin host write: the body spread into its envelope, no widening.
  const write = (body: TraceEventBody): TraceEventInput => ({ runId: "run_a", stepId: null, ...body });

  it("spreads into an event of that kind with that payload", () => {
    expect(write({ kind: "step.started", payload: { attempt: 2 } })).toEqual({
      runId: "run_a",
      stepId: null,
      kind: "step.started",
      payload: { attempt: 2 },
    });
  });

  it("is checked against its kind by the compiler", () => {
    // @ts-expect-error step.started's payload has no reasons; run.escalated's does
    const mismatched: TraceEventBody = { kind: "step.started", payload: { reasons: ["stuck"] } };
    // @ts-expect-error a kind the catalogue does not list
    const unknown: TraceEventBody = { kind: "step.teleported", payload: {} };
    expect([mismatched.kind, unknown.kind]).toEqual(["step.started", "step.teleported"]);
  });
});

describe("typedTraceEvent, at every read boundary", () => {
  it("returns the event exactly as stored, fields beyond the schema kept", () => {
    const event = {
      ...envelope,
      kind: "tool.executed",
      payload: { callId: "c1", tool: "run_command", index: 0, status: "ok", attempts: 1, exitCode: 0 },
    };
    const typed = typedTraceEvent(event);
    expect(typed).toBe(event);
    if (typed.kind === "tool.executed") expect(typed.payload.exitCode).toBe(0);
  });

  it("refuses a kind the catalogue does not list, naming the event and the kind", () => {
    expect(() => typedTraceEvent({ ...envelope, kind: "tool.teleported", payload: {} })).toThrow(
      expect.objectContaining({
        code: "contract_invalid",
        message: expect.stringMatching(/trace event 7 of run run_a has kind "tool.teleported"/),
      }),
    );
  });

  it("refuses a payload of the wrong shape, naming the field", () => {
    const event = { ...envelope, kind: "tool.called", payload: { ...called, argBytes: "two" } };
    expect(() => typedTraceEvent(event)).toThrow(
      expect.objectContaining({
        code: "contract_invalid",
        message: expect.stringMatching(/\(tool.called\) has a malformed payload[\s\S]*argBytes/),
      }),
    );
  });
});
