import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { TraceEvent } from "@rein/contracts/run";
import { type ModelProvider, type ModelScriptInput, ScriptedProvider } from "@rein/models";
import { defineTool } from "@rein/tools";
import { type Harness, startHarness } from "./support/harness.ts";
import { REPOSITORY, referenceMcpServer } from "./support/core-fixtures.ts";

/**
 * A run cancelled while one of its steps runs in a worker: the worker hears
 * of it at once, aborts what is in flight (the tool call here; the model
 * call in step-cancel-model.int.test.ts) and calls nothing more, whatever
 * the model asked for next.
 */

// The official reference server, pinned in the orchestrator's devDependencies; its stdin is tapped to read the wire.
const EVERYTHING = referenceMcpServer("everything");
const TAP = fileURLToPath(new URL("./mcp/fixtures/stdin-tap.mjs", import.meta.url));
const LONG_OPERATION = "every__trigger-long-running-operation";

const marker = `rein-cancel-${process.pid}-${Date.now()}`;
const planFor = (goal: string, title: string, tools: string[]) => ({
  match: ["Completed steps: none", `Goal: ${goal}`],
  turns: [{ output: { current_step: { title, objective: title, tools, budget: { maxTurns: 6, maxToolCalls: 6 } }, done: false } }],
});

const GOALS = {
  command: "Run the long command",
  mcp: "Run the long MCP operation",
  stubborn: "Wait for the stubborn tool",
};
// Each first turn asks for more after the call that hangs; later turns ask for more still. None of it may happen.
const script: ModelScriptInput = {
  planner: [
    planFor(GOALS.command, "Run a command that never ends", ["run_command", "list_files"]),
    planFor(GOALS.mcp, "Call the long-running operation", [LONG_OPERATION, "every__echo"]),
    planFor(GOALS.stubborn, "Call the tool that ignores cancels", ["stubborn", "list_files"]),
  ],
  worker: [
    {
      match: "Run a command that never ends",
      turns: [
        {
          toolCalls: [
            { name: "run_command", input: { command: "node", args: ["-e", `/* ${marker} */ setInterval(() => {}, 1000)`] } },
            {
              name: "run_command",
              input: { command: "node", args: ["-e", "require('node:fs').writeFileSync('after-cancel.txt', 'ran')"] },
            },
          ],
        },
        { toolCalls: [{ name: "list_files", input: {} }] },
        { text: "done" },
      ],
    },
    {
      match: "Call the long-running operation",
      turns: [
        {
          toolCalls: [
            { name: LONG_OPERATION, input: { duration: 600, steps: 600 } },
            { name: "every__echo", input: { message: "after the cancel" } },
          ],
        },
        { toolCalls: [{ name: "every__echo", input: { message: "a turn after the cancel" } }] },
        { text: "done" },
      ],
    },
    {
      match: "Call the tool that ignores cancels",
      turns: [
        {
          toolCalls: [
            { name: "stubborn", input: {} },
            { name: "list_files", input: {} },
          ],
        },
        { toolCalls: [{ name: "list_files", input: {} }] },
        { text: "done" },
      ],
    },
  ],
};

/** The worker's model, counting its calls per run. */
function countingWorker(): ModelProvider & { callsOf(runId: string): number } {
  const scripted = new ScriptedProvider(script, { name: "scripted-worker" });
  const calls = new Map<string, number>();
  return {
    kind: scripted.kind,
    name: scripted.name,
    model: scripted.model,
    callsOf: (runId) => calls.get(runId) ?? 0,
    complete: (request, options) => {
      const runId = String(request.metadata?.runId);
      calls.set(runId, (calls.get(runId) ?? 0) + 1);
      return scripted.complete(request, options);
    },
  };
}

let stubbornStarted: () => void = () => {};
const stubbornCalled = new Promise<void>((resolve) => {
  stubbornStarted = resolve;
});
// A tool that ignores its abort signal and never answers: the step must stop all the same.
const stubborn = defineTool({
  name: "stubborn",
  description: "Waits forever and ignores cancels.",
  effect: "read",
  timeoutMs: 600_000,
  input: z.object({}),
  run: () =>
    new Promise<string>(() => {
      stubbornStarted();
    }),
});

/** Host pids of processes whose command line holds `text` (the sandbox's and the program's). */
function pidsWith(text: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(text)) pids.push(Number(entry));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return pids;
}

/** Whether `pid` still runs: gone, or a zombie nobody waits for any more, is not running. */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

const wireLines = (path: string): Record<string, unknown>[] =>
  existsSync(path)
    ? readFileSync(path, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>)
    : [];
const toolCallsOnWire = (path: string) => wireLines(path).filter((message) => message.method === "tools/call");

describe("cancelling a run while its step runs a tool", { timeout: 180_000 }, () => {
  let harness: Harness;
  let worker: ReturnType<typeof countingWorker>;
  // The tap writes it from inside the server's sandbox, which shows its directory writable.
  const wireDir = mkdtempSync(join(tmpdir(), "rein-mcp-wire-"));
  const wireLog = join(wireDir, "wire.jsonl");

  beforeAll(async () => {
    worker = countingWorker();
    const allowNode = { id: "allow-node", tool: "run_command", decision: "allow" as const, commands: ["node"] };
    harness = await startHarness(script, [stubborn], {
      worker,
      config: {
        policy: [allowNode],
        mcp: [
          {
            name: "every",
            command: process.execPath,
            args: [TAP, wireLog, EVERYTHING, "stdio"],
            mounts: [REPOSITORY, { path: wireDir, writable: true }],
            include: ["trigger-long-running-operation", "echo"],
            trustAnnotations: true,
            timeoutMs: 600_000,
          },
        ],
      },
    });
  }, 120_000);
  afterAll(async () => {
    await harness?.close();
  });

  async function cancelOnce(runId: string, started: () => Promise<unknown>): Promise<TraceEvent[]> {
    await started();
    await harness.runtime.queues.sendControl({ type: "run.cancel", eventId: `cancel-${runId}`, runId, reason: "cancelled by the test" });
    expect((await harness.waitFor(runId)).status).toBe("cancelled");
    // The worker traces where it stopped once its loop has ended: from then on it can call nothing.
    await expect
      .poll(async () => (await harness.runtime.trace.read(runId)).some((event) => event.kind === "step.cancelled"), { timeout: 60_000 })
      .toBe(true);
    return harness.runtime.trace.read(runId);
  }

  const called = (events: TraceEvent[]) => events.filter((event) => event.kind === "tool.called").map((event) => event.payload.tool);
  const cancelled = (events: TraceEvent[]) => events.find((event) => event.kind === "step.cancelled")?.payload;

  it("kills a running run_command's process tree and runs nothing the model asked for after it", async () => {
    const runId = await harness.submit({
      text: GOALS.command,
      tools: [{ name: "run_command", scope: { commands: ["node"] } }, { name: "list_files" }],
      policy: [{ id: "allow-node", tool: "run_command", decision: "allow", commands: ["node"] }],
    });
    let pids: number[] = [];
    const events = await cancelOnce(runId, () =>
      expect
        .poll(
          () => {
            pids = pidsWith(marker);
            return pids.length;
          },
          { timeout: 60_000 },
        )
        .toBeGreaterThan(0),
    );

    await expect.poll(() => pids.filter(running), { timeout: 30_000 }).toEqual([]);
    expect(cancelled(events)).toMatchObject({ runStatus: "cancelled", cutOff: "tool_call", tool: "run_command", turns: 1, calls: 0 });
    expect(called(events)).toEqual(["run_command"]);
    expect(events.some((event) => event.kind === "tool.interrupted")).toBe(true);
    expect(worker.callsOf(runId)).toBe(1);
    expect(existsSync(join(harness.runtime.config.workspaceRoot, runId, "after-cancel.txt"))).toBe(false);
    // Nothing was recorded as a failure for the evaluator or a retry to act on.
    expect(events.some((event) => event.kind === "step.finished" || event.kind === "step.errored")).toBe(false);
  });

  it("sends notifications/cancelled for a running MCP call of the reference server and calls nothing more", async () => {
    const runId = await harness.submit({ text: GOALS.mcp, tools: [{ name: LONG_OPERATION }, { name: "every__echo" }] });
    const events = await cancelOnce(runId, () => expect.poll(() => toolCallsOnWire(wireLog).length, { timeout: 60_000 }).toBe(1));

    const [operation] = toolCallsOnWire(wireLog);
    expect(operation?.params).toMatchObject({ name: "trigger-long-running-operation" });
    await expect
      .poll(() => wireLines(wireLog).find((message) => message.method === "notifications/cancelled")?.params, { timeout: 30_000 })
      .toMatchObject({ requestId: operation?.id });
    expect(toolCallsOnWire(wireLog)).toHaveLength(1);
    expect(cancelled(events)).toMatchObject({ cutOff: "tool_call", tool: LONG_OPERATION });
    expect(called(events)).toEqual([LONG_OPERATION]);
    expect(worker.callsOf(runId)).toBe(1);
  });

  it("stops a step whose tool ignores the cancel: the model's further calls are never made", async () => {
    const runId = await harness.submit({ text: GOALS.stubborn, tools: [{ name: "stubborn" }, { name: "list_files" }] });
    const events = await cancelOnce(runId, () => stubbornCalled);

    expect(cancelled(events)).toMatchObject({ cutOff: "tool_call", tool: "stubborn" });
    expect(called(events)).toEqual(["stubborn"]);
    expect(worker.callsOf(runId)).toBe(1);
  });
});
