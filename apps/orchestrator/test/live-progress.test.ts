import { describe, expect, it } from "vitest";
import { describeLiveEvent } from "../src/cli/progress.ts";

describe("the CLI's live output", () => {
  it("prints streamed text as it comes, and says so when a retry voids it", () => {
    const source = { runId: "run_1", stepId: "s1", role: "worker" as const };
    expect(describeLiveEvent({ type: "text_delta", ...source, text: "Half an ans" })).toContain("Half an ans");
    const notice = describeLiveEvent({ type: "retry", ...source, attempt: 1, reason: "stream_error", delayMs: 250 });
    expect(notice).toMatch(/\[s1\] worker model call retried \(attempt 1, stream_error\): discard the partial output above/);
    expect(notice.startsWith("\n")).toBe(true);
  });

  it("prints thinking apart from the answer (dimmed and in italics)", () => {
    const source = { runId: "run_1", stepId: "s1", role: "worker" as const };
    const thinking = describeLiveEvent({ type: "thinking_delta", ...source, text: "checking the log" });
    const answer = describeLiveEvent({ type: "text_delta", ...source, text: "checking the log" });
    expect(thinking).toContain("checking the log");
    expect(thinking).not.toBe(answer);
  });
});
