import { describe, expect, it } from "vitest";
import { limitSize } from "../../src/executor/stages/limit-size.ts";
import { callInProgress, noteTool } from "../../src/testing/stage-harness.ts";

const { tool } = noteTool();
const result = (rendered: string) => ({
  kind: "result" as const,
  source: "executed" as const,
  attempts: 1,
  durationMs: 1,
  result: {
    schemaVersion: 1 as const,
    fingerprint: "sha256:f" as const,
    rendered,
    rawOutputHash: "sha256:h" as const,
    empty: rendered === "",
    observedAt: "2026-12-01T00:00:00.000Z",
  },
});

describe("limit-size stage", () => {
  it("bounds a long output and keeps the whole of it in an artifact", async () => {
    const long = Array.from({ length: 100 }, (_, line) => `line ${line}`).join("\n");
    const { state, artifacts, trace } = callInProgress({ state: { tool, execution: result(long) } });
    await limitSize(state);
    expect(state.prepared?.truncated).toMatchObject({ shownLines: 20, totalLines: 100 });
    expect(artifacts.items.get(state.prepared?.artifactId ?? "")).toBe(long);
    expect(trace.ofKind("observation.truncated")[0]?.payload).toMatchObject({ artifactId: state.prepared?.artifactId });
  });

  it("leaves a short output whole, with no artifact", async () => {
    const { state, artifacts } = callInProgress({ state: { tool, execution: result("short") } });
    await limitSize(state);
    expect(state.prepared).toMatchObject({ shown: "short" });
    expect(artifacts.items.size).toBe(0);
  });

  it("has nothing to show for an empty result", async () => {
    const { state } = callInProgress({ state: { tool, execution: result("") } });
    await limitSize(state);
    expect(state.prepared).toBeUndefined();
  });
});
