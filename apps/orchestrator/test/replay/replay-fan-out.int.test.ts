import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnyTool, defineTool } from "@rein/tools";
import { isTraceEventOf } from "@rein/trace";
import type { TraceLog } from "@rein/runtime";
import { createTestRuntime, type TestRuntime } from "@rein/runtime/testing";
import { scriptedOverrides } from "../../src/cli/run-command.ts";
import { type LoadedExample, loadExample } from "../../src/examples/load-example.ts";
import { runPrivately } from "../../src/replay/in-process-run.ts";
import { openIsolatedRuntime } from "../../src/replay/isolated-runtime.ts";
import { replayRun } from "../../src/replay/replay-run.ts";
import { loadBundle, type TraceBundle } from "../../src/trace/trace-bundle.ts";

/**
 * examples/research-fanout's look-ups (s1 eu, s2 us, s3 ap) as its tools,
 * each held until the step named in `after` has finished in `trace`, so
 * the children finish in an order the test chooses, whatever the machine's
 * load (the example's own latencies, 1.2 to 2 s, are still served).
 */
function inOrder(tools: readonly AnyTool[], trace: TraceLog, after: Record<string, string>): AnyTool[] {
  return tools.map((tool) =>
    defineTool({
      ...tool,
      run: async (args: unknown, context: Parameters<AnyTool["run"]>[1]) => {
        const awaited = after[tool.name];
        if (awaited) await stepFinished(trace, context.runId, awaited, context.signal);
        return tool.run(args, context);
      },
    } as AnyTool),
  );
}

async function stepFinished(trace: TraceLog, runId: string, stepId: string, signal: AbortSignal): Promise<void> {
  const following = new AbortController();
  const stop = () => following.abort();
  signal.addEventListener("abort", stop, { once: true });
  try {
    for await (const event of trace.follow(runId, following.signal, 50))
      if (event.kind === "step.finished" && event.stepId === stepId) return;
  } finally {
    signal.removeEventListener("abort", stop);
    following.abort();
  }
}

/**
 * What the run decided: each member's verdict (the trace records them as they
 * came, so by step), the join with its inputs, then every plan and answer.
 */
function decisionsOf(events: TraceBundle["events"]): unknown[] {
  const verdicts = events
    .filter((event) => isTraceEventOf(event, "verdict.ready") && event.stepId !== null)
    .map((event) => ["verdict", event.stepId, event.payload] as unknown[])
    .sort(([, left], [, right]) => String(left).localeCompare(String(right)));
  const rest = events.flatMap((event): unknown[][] =>
    ["group.joined", "plan.ready", "answer.proposed", "run.done"].includes(event.kind) ? [[event.kind, event.payload]] : [],
  );
  return [...verdicts, ...rest];
}

describe("replaying a run whose plan fanned out (examples/research-fanout)", { timeout: 180_000 }, () => {
  let runtime: TestRuntime;
  let example: LoadedExample;
  let bundle: TraceBundle;

  beforeAll(async () => {
    example = await loadExample("research-fanout");
    runtime = await createTestRuntime(scriptedOverrides(example));
    const { state } = await runPrivately(runtime, {
      goal: example.goal,
      workspaceDir: example.seedDir,
      tools: inOrder(example.tools, runtime.trace, { read_eu_report: "s2", read_us_report: "s3" }),
    });
    bundle = await loadBundle(runtime, state.runId);
  }, 180_000);
  afterAll(async () => runtime?.cleanup());

  /** The report, and the replay's own decisions read from its trace before its scratch runtime is gone. */
  async function replay(options: Parameters<typeof replayRun>[2]) {
    const scratch = await openIsolatedRuntime(runtime.config, "replay");
    try {
      const tools =
        options?.mode === "real" ? inOrder(example.tools, scratch.trace, { read_ap_report: "s1", read_us_report: "s3" }) : example.tools;
      const report = await replayRun(scratch, bundle, { seedDir: example.seedDir, tools, ...options });
      const events = await scratch.trace.read(bundle.runId);
      return {
        report,
        decisions: decisionsOf(events),
        finished: events.filter((event) => event.kind === "step.finished").map((event) => event.stepId),
      };
    } finally {
      await scratch.discard();
    }
  }

  it("was recorded with its children finishing in the reverse of the order asked", () => {
    expect(bundle.state?.status).toBe("done");
    const finished = bundle.events.filter((event) => event.kind === "step.finished").map((event) => event.stepId);
    expect(finished).toEqual(["s3", "s2", "s1"]);
    const joined = bundle.events.find((event) => event.kind === "group.joined");
    expect(joined?.payload.inputs.map((input: { stepId: string }) => input.stepId)).toEqual(["s1", "s2", "s3"]);
  });

  it("replays identical with every call answered from the recording, the children finishing in whatever order they do", async () => {
    const { report, decisions } = await replay({});
    expect(report.comparison.divergence).toBeUndefined();
    expect(decisions).toEqual(decisionsOf(bundle.events));
    expect(report.identical).toBe(true);
    expect(report.status).toEqual({ recorded: "done", replay: "done" });
  });

  it("replays identical with the tools run again, the children finishing s1, s3, s2 this time", async () => {
    const { report, decisions, finished } = await replay({ mode: "real" });
    expect(finished).toEqual(["s1", "s3", "s2"]);
    expect(report.comparison.divergence).toBeUndefined();
    expect(decisions).toEqual(decisionsOf(bundle.events));
    expect(report.identical).toBe(true);
    expect(report.comparison.compared).toBe(bundle.events.filter((event) => event.kind === "tool.result").length);
    expect(report.status).toEqual({ recorded: "done", replay: "done" });
  });
});
