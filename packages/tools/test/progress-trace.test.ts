import { describe, expect, it } from "vitest";
import { CallTrace } from "../src/executor/call-trace.ts";
import { ProgressTrace } from "../src/executor/progress-trace.ts";
import { MemoryTrace } from "../src/testing/executor-harness.ts";

const base = {
  runId: "run_p",
  stepId: "step_p",
  parentStepId: null,
  callId: "call_p",
  tool: "srv__slow",
  index: 0,
  argsHash: "sha256:00" as const,
};

function progressTrace() {
  const sink = new MemoryTrace();
  let now = 0;
  const progress = new ProgressTrace(
    new CallTrace(sink, base),
    () => now,
    (error) => {
      throw error;
    },
  );
  return { sink, progress, advance: (ms: number) => (now += ms) };
}

describe("tracing a call's progress", () => {
  it("traces the first report, then at most one a second, counting those left out", async () => {
    const { sink, progress, advance } = progressTrace();
    for (let step = 1; step <= 25; step += 1) {
      progress.report({ progress: step, total: 25 });
      advance(100);
    }
    await progress.end();
    const events = sink.ofKind("tool.progress").map((event) => event.payload);
    expect(events.map((event) => event.progress)).toEqual([1, 11, 21]);
    expect(events.map((event) => event.skipped)).toEqual([0, 9, 9]);
    expect(events[0]).toMatchObject({ callId: "call_p", tool: "srv__slow", total: 25 });
  });

  it("stops at 100 events for a call however long it reports", async () => {
    const { sink, progress, advance } = progressTrace();
    for (let step = 1; step <= 500; step += 1) {
      progress.report({ progress: step });
      advance(1_000);
    }
    await progress.end();
    expect(sink.ofKind("tool.progress")).toHaveLength(100);
  });

  it("cuts a long message and drops reports that arrive after the call ended", async () => {
    const { sink, progress, advance } = progressTrace();
    progress.report({ progress: 1, message: "x".repeat(5_000) });
    await progress.end();
    advance(5_000);
    progress.report({ progress: 2 });
    const events = sink.ofKind("tool.progress");
    expect(events).toHaveLength(1);
    expect(events[0]?.payload.message).toHaveLength(200);
  });
});
