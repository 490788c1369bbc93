import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ReinError } from "@rein/contracts";
import { type ModelRequest, ScriptedProvider } from "../src/index.ts";

const request = (role: ModelRequest["role"], text: string, assistantTurns = 0): ModelRequest => ({
  role,
  system: "system prompt",
  messages: [
    { role: "user", content: [{ type: "text", text }] },
    ...Array.from({ length: assistantTurns }, (_, index) => [
      { role: "assistant" as const, content: [{ type: "text" as const, text: `turn ${index}` }] },
      { role: "user" as const, content: [{ type: "text" as const, text: "next" }] },
    ]).flat(),
  ],
});

describe("ScriptedProvider", () => {
  const provider = new ScriptedProvider({
    worker: [
      { match: "Task: A", turns: [{ toolCalls: [{ name: "read_file", input: { path: "a" } }] }, { text: "done with A" }] },
      { match: "Task: B", turns: [{ text: "B forever" }], repeatLast: true },
    ],
    planner: [{ turns: [{ output: { done: true } }] }],
  });

  it("serves the turn at the request's position in its conversation", async () => {
    const first = await provider.complete(request("worker", "Task: A"));
    expect(first.content).toEqual([{ type: "tool_call", id: "call_0_0", name: "read_file", input: { path: "a" } }]);
    expect(first.stopReason).toBe("tool_use");
    const second = await provider.complete(request("worker", "Task: A", 1));
    expect(second.content).toEqual([{ type: "text", text: "done with A" }]);
    expect(second.stopReason).toBe("end_turn");
  });

  it("chooses the conversation by what the request says", async () => {
    const reply = await provider.complete(request("worker", "Task: B"));
    expect(reply.content).toEqual([{ type: "text", text: "B forever" }]);
  });

  it("repeats the last turn only when the script says so", async () => {
    expect((await provider.complete(request("worker", "Task: B", 5))).content).toEqual([{ type: "text", text: "B forever" }]);
    await expect(provider.complete(request("worker", "Task: A", 2))).rejects.toThrow(
      /has 2 turn\(s\) for this conversation but turn 3 was requested/,
    );
  });

  it("returns structured output and estimates usage", async () => {
    const reply = await provider.complete(request("planner", "anything"));
    expect(reply.output).toEqual({ done: true });
    expect(reply.usage.inputTokens).toBeGreaterThan(0);
  });

  it("says when no conversation matches", async () => {
    const error = await provider.complete(request("worker", "Task: C")).catch((caught: unknown) => caught);
    expect(ReinError.hasCode(error, "script_exhausted")).toBe(true);
  });

  it("records every request it was shown", async () => {
    const recorder = new ScriptedProvider({ judge: [{ turns: [{ output: { verdict: "pass" } }] }] });
    await recorder.complete(request("judge", "judge this"));
    expect(recorder.requests).toHaveLength(1);
    expect(recorder.requests[0]?.messages[0]?.content).toEqual([{ type: "text", text: "judge this" }]);
  });

  describe("a turn with delayMs", () => {
    afterEach(() => {
      vi.useRealTimers();
    });
    const slow = () => new ScriptedProvider({ worker: [{ turns: [{ text: "late", delayMs: 2_000 }] }] });

    it("answers only once its delay has passed, as an emulated model's latency", async () => {
      vi.useFakeTimers();
      let answered = false;
      const answer = slow()
        .complete(request("worker", "Task: slow"))
        .then((response) => {
          answered = true;
          return response;
        });
      await vi.advanceTimersByTimeAsync(1_999);
      expect(answered).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect((await answer).content).toEqual([{ type: "text", text: "late" }]);
    });

    it("stops waiting when the request is aborted", async () => {
      const aborted = new AbortController();
      const answer = slow().complete(request("worker", "Task: slow"), { signal: aborted.signal });
      aborted.abort(new Error("the run was cancelled"));
      await expect(answer).rejects.toThrow("the run was cancelled");
    });
  });

  it("rejects an invalid script when it is loaded", () => {
    expect(() => new ScriptedProvider({ worker: [{ turns: [{}] }] } as never)).toThrow(/model script is invalid/);
  });

  it("refuses a script file that is not a model script, naming the file", () => {
    const file = join(mkdtempSync(join(tmpdir(), "rein-script-")), "script.json");
    writeFileSync(file, JSON.stringify({ worker: "fix it" }));
    expect(() => ScriptedProvider.fromFile(file)).toThrow(
      expect.objectContaining({ code: "config_invalid", message: expect.stringContaining(`model script ${file} is invalid`) }),
    );
  });
});
