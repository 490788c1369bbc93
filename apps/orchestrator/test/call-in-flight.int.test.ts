import { afterEach, describe, expect, it, vi } from "vitest";
import { newId } from "@rein/contracts";
import type { LiveEvent } from "@rein/runtime";
import { TEST_REDIS_URL } from "@rein/runtime/testing";
import { submitGoal } from "@rein/controller";
import { defineTool, z } from "@rein/tools";
import type { RunView } from "../src/trace/views/run-view/run-view-model.ts";
import { apiOverHarnessPerFile } from "./support/api-server.ts";
import { startRein } from "./support/cli.ts";
import { startHarness } from "./support/harness.ts";
import { probeGoal, probeScript } from "./support/probe-run.ts";

/**
 * A tool call that runs for minutes is visible while it runs (issue 32,
 * point 6): a worker's turn is one durable write made after its calls end,
 * so the stored trace holds nothing of a call in flight; its start and its
 * progress go out on the run's live channel and into a short-lived record
 * of calls in flight, which `rein trace --follow`, the run page and
 * `/runs/:id/view` show, until the durable record takes over.
 */

let release: () => void = () => undefined;
let released = new Promise<void>((resolve) => (release = resolve));
afterEach(() => release());

/** `probe` as probe-run.ts has it, held open after it reports progress until the test releases it. */
const heldProbe = defineTool({
  name: "probe",
  description: "Read a status value. Read-only.",
  effect: "read",
  input: z.object({ key: z.string().default("status") }),
  run: async (args, context) => {
    context.progress?.({ progress: 1, total: 2, message: "halfway there" });
    await released;
    return `${args.key}: pending`;
  },
});

const token = "test-token-call-in-flight-0123";
const api = apiOverHarnessPerFile(() => startHarness(probeScript, [heldProbe]), { token });

async function viewOf(runId: string): Promise<RunView> {
  const response = await fetch(`${api.base}/runs/${runId}/view`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as RunView;
}

describe("a tool call in flight (issue 32.6)", () => {
  it("is on the live channel, in /runs/:id/view and in rein trace --follow while it runs, and once in the durable trace after", async () => {
    released = new Promise<void>((resolve) => (release = resolve));
    const { harness } = api;
    const runId = newId("run");
    const live: LiveEvent[] = [];
    const subscription = await harness.runtime.live.subscribe(runId, (event) => live.push(event));
    try {
      await submitGoal(harness.runtime, probeGoal, { knownTools: harness.tooling.registry.names(), runId });
      const started = await vi.waitFor(
        () => {
          const event = live.find((item) => item.type === "tool_started");
          if (!event) throw new Error("no tool_started on the live channel yet");
          return event;
        },
        { timeout: 20_000, interval: 50 },
      );
      expect(started).toMatchObject({ type: "tool_started", stepId: "s1", role: "worker", tool: "probe", index: 0, args: {} });
      await vi.waitFor(() => expect(live.some((item) => item.type === "tool_progress" && item.message === "halfway there")).toBe(true));

      // The turn is not written yet: nothing of the call is in the stored trace.
      const stored = await harness.runtime.trace.read(runId);
      expect(stored.filter((event) => event.kind.startsWith("tool."))).toEqual([]);

      const inFlight = await vi.waitFor(
        async () => {
          const view = await viewOf(runId);
          if (view.inFlight.length === 0) throw new Error("the view shows no call in flight yet");
          return view.inFlight;
        },
        { timeout: 10_000, interval: 100 },
      );
      expect(inFlight).toEqual([
        expect.objectContaining({
          stepId: "s1",
          callId: started.type === "tool_started" ? started.callId : "",
          tool: "probe",
          index: 0,
          progress: expect.objectContaining({ progress: 1, total: 2, message: "halfway there" }),
        }),
      ]);

      const follow = startRein(["trace", runId, "--follow"], {
        ...process.env,
        REDIS_URL: TEST_REDIS_URL,
        REIN_PREFIX: harness.runtime.config.prefix,
        REIN_LOG_LEVEL: "silent",
      });
      let followed = "";
      follow.child.stdout?.on("data", (chunk) => (followed += chunk));
      await vi.waitFor(() => expect(followed).toContain("⚙ probe("), { timeout: 30_000, interval: 100 });

      release();
      expect((await harness.waitFor(runId)).status).toBe("done");
      const { code, stdout } = await follow.done;
      expect(code).toBe(0);
      // Shown once: the live start, not again when the durable tool.called arrives.
      expect(stdout.match(/⚙ probe\(/g)).toHaveLength(1);
      expect(stdout).toMatch(/↳ ok in \d+ ms/);

      const view = await viewOf(runId);
      expect(view.inFlight).toEqual([]);
      expect(view.calls.filter((call) => call.tool === "probe")).toHaveLength(1);
      expect((await harness.runtime.trace.read(runId)).filter((event) => event.kind === "tool.called")).toHaveLength(1);
      expect(live.some((item) => item.type === "tool_finished" && item.status === "ok")).toBe(true);
    } finally {
      await subscription.close();
    }
  }, 90_000);
});
