import { describe, expect, it } from "vitest";
import { LiveEvent, liveEventOf } from "../../src/live/live-event.ts";

describe("live events from a model's stream", () => {
  const source = { runId: "run_1", stepId: "s1", role: "worker" as const };

  it("carries thinking as its own kind, so no view shows it as the answer", () => {
    const event = liveEventOf({ type: "thinking_delta", text: "The log says 500s began at 14:02." }, source);
    expect(event).toEqual({ type: "thinking_delta", ...source, text: "The log says 500s began at 14:02." });
    expect(LiveEvent.parse(event)).toEqual(event);
  });

  it("takes terminal escape sequences and invisible characters out of model text before any view shows it", () => {
    const hostile = "ok\x1b[2J\x1b]0;pwned\x07 done\u202e";
    for (const type of ["text_delta", "thinking_delta"] as const) {
      const event = liveEventOf({ type, text: hostile }, source);
      expect(event && "text" in event ? event.text : "").toBe("ok[2J]0;pwned done");
    }
  });
});
