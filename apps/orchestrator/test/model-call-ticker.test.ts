import { describe, expect, it } from "vitest";
import type { LiveEvent } from "@rein/runtime";
import { ModelCallTicker } from "../src/cli/model-call-ticker.ts";

const CLEAR = "\r\x1b[2K";

function ticker() {
  let now = 0;
  let written = "";
  const shown = new ModelCallTicker(
    (text) => {
      written += text;
    },
    () => now,
  );
  return {
    shown,
    at: (ms: number) => {
      now = ms;
    },
    take: () => {
      const text = written;
      written = "";
      return text;
    },
  };
}

const source = { runId: "run_1", stepId: "s1", role: "worker" } as const;
const started: LiveEvent = { type: "call_started", ...source };
const finished: LiveEvent = { type: "call_finished", ...source, durationMs: 12_000 };

describe("elapsed time of a model call in flight, on a terminal", () => {
  it("shows one status line with the role, step and seconds so far, redrawn in place", () => {
    const { shown, at, take } = ticker();
    shown.onLive(started);
    at(12_400);
    shown.tick();
    expect(take()).toBe(`${CLEAR}  … worker [s1] model call in flight: 12 s`);
    at(13_100);
    shown.tick();
    expect(take()).toBe(`${CLEAR}  … worker [s1] model call in flight: 13 s`);
  });

  it("takes the status line away before a progress line, and when the call ends", () => {
    const { shown, at, take } = ticker();
    shown.onLive({ ...started, role: "planner", stepId: null });
    at(3_000);
    shown.tick();
    take();
    shown.beforeLine();
    expect(take()).toBe(CLEAR);
    shown.tick();
    take();
    shown.onLive({ ...finished, role: "planner", stepId: null });
    expect(take()).toBe(CLEAR);
    at(9_000);
    shown.tick();
    expect(take()).toBe("");
  });

  it("names every call in flight at once", () => {
    const { shown, at, take } = ticker();
    shown.onLive({ ...started, role: "planner", stepId: null });
    at(2_000);
    shown.onLive(started);
    at(5_000);
    shown.tick();
    expect(take()).toBe(`${CLEAR}  … planner 5 s, worker [s1] 3 s: model calls in flight`);
  });

  it("stays out of the way while model text streams, until the next progress line", () => {
    const { shown, at, take } = ticker();
    shown.onLive(started);
    shown.onLive({ type: "text_delta", ...source, text: "Reading the test" });
    expect(take()).toBe("\x1b[2mReading the test\x1b[0m");
    at(4_000);
    shown.tick();
    expect(take()).toBe("");
    shown.beforeLine();
    shown.tick();
    expect(take()).toBe(`${CLEAR}  … worker [s1] model call in flight: 4 s`);
  });

  it("says a retried call voids its partial output", () => {
    const { shown, take } = ticker();
    shown.onLive({ type: "retry", ...source, attempt: 2, reason: "stream_error", delayMs: 0 });
    expect(take()).toContain("↻ [s1] worker model call retried (attempt 2, stream_error): discard the partial output above");
  });
});
