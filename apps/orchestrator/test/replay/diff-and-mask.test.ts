import { describe, expect, it } from "vitest";
import { lineDiff } from "../../src/replay/line-diff.ts";
import { maskVolatile } from "../../src/replay/volatile-fields.ts";

describe("line diff", () => {
  it("shows the changed line as - then +, with context and elided runs", () => {
    const before = ["a", "b", "c", "d", "e", "f", "g"].join("\n");
    const after = ["a", "b", "c", "D", "e", "f", "g"].join("\n");
    expect(lineDiff(before, after, { context: 1 }).split("\n")).toEqual([
      "--- recorded",
      "+++ replay",
      "@@ …",
      "  c",
      "- d",
      "+ D",
      "  e",
      "@@ …",
    ]);
  });
});

describe("volatile fields", () => {
  it("masks timings and the run's workspace path, and names what it masked", () => {
    const recorded = "ok 1 - adds\n  duration_ms: 2.6\nat file:///work/.rein/workspaces/run_x/test/a.js:7\n# duration_ms 70.1";
    const replay = "ok 1 - adds\n  duration_ms: 1.9\nat file:///tmp/rein-replay-1/run_x/test/a.js:7\n# duration_ms 64";
    const a = maskVolatile(recorded, "run_x");
    const b = maskVolatile(replay, "run_x");
    expect(a.text).toBe(b.text);
    expect(a.masked).toEqual(["duration_ms", "workspace path"]);
  });

  it("leaves a real difference visible", () => {
    expect(maskVolatile("exit code: 0", "run_x").text).not.toBe(maskVolatile("exit code: 1", "run_x").text);
  });
});
