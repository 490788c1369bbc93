import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TraceEvent } from "@rein/contracts/run";
import type { ModelScriptInput } from "@rein/models";
import type { FakeServer } from "@rein/models/testing";
import { closeNow, listenOnLoopback } from "./support/api-server.ts";
import {
  type ConfiguredHarness,
  MODEL_KEYS,
  plannerAndWorker,
  scriptedPlanner,
  startConfiguredHarness,
} from "./support/configured-harness.ts";

/** A model endpoint that takes every request and never answers it, and notices when a client gives one up. */
interface HangingModel {
  baseURL: string;
  requests: number;
  /** How many requests the client abandoned (closed the connection) before any answer. */
  abandoned: number;
  firstRequest: Promise<void>;
  stop(): Promise<void>;
}

async function startHangingModel(): Promise<HangingModel> {
  let arrived: () => void = () => {};
  const model: Omit<HangingModel, "stop" | "baseURL"> = {
    requests: 0,
    abandoned: 0,
    firstRequest: new Promise<void>((resolve) => (arrived = resolve)),
  };
  const server: Server = createServer((request, response) => {
    model.requests += 1;
    request.resume();
    response.on("close", () => {
      if (!response.writableEnded) model.abandoned += 1;
    });
    arrived();
  });
  const { base } = await listenOnLoopback(server);
  return Object.assign(model, { baseURL: base, stop: () => closeNow(server) });
}

/** Follows the run's trace until an event of `kind` is written. */
async function traceReaches(harness: ConfiguredHarness, runId: string, kind: string): Promise<void> {
  const following = new AbortController();
  try {
    for await (const event of harness.runtime.trace.follow(runId, following.signal, 200)) if (event.kind === kind) return;
  } finally {
    following.abort();
  }
}

const GOAL = "Ask the model something it never answers";
const script: ModelScriptInput = {
  planner: [
    {
      match: ["Completed steps: none", `Goal: ${GOAL}`],
      turns: [
        {
          output: {
            current_step: { title: "Ask the slow model", objective: "Ask the model and report.", tools: ["list_files"] },
            done: false,
          },
        },
      ],
    },
  ],
};

describe("cancelling a run while its worker waits on the model", { timeout: 120_000 }, () => {
  let planner: FakeServer;
  let worker: HangingModel;
  let harness: ConfiguredHarness;
  let status: string;
  let events: TraceEvent[];

  beforeAll(async () => {
    planner = await scriptedPlanner(script);
    worker = await startHangingModel();
    harness = await startConfiguredHarness({
      config: plannerAndWorker(planner, worker),
      env: MODEL_KEYS,
    });
    const runId = await harness.submit({ text: GOAL, tools: [{ name: "list_files" }] });
    await worker.firstRequest;
    // As `rein cancel` and POST /runs/:id/cancel send it.
    await harness.runtime.queues.sendControl({ type: "run.cancel", eventId: `cancel-${runId}`, runId, reason: "cancelled by the test" });
    status = (await harness.waitFor(runId)).status;
    // The worker traces where it stopped once its loop has ended: from then on it can call nothing.
    await traceReaches(harness, runId, "step.cancelled");
    events = await harness.runtime.trace.read(runId);
  }, 120_000);
  afterAll(async () => {
    await harness?.close();
    await planner?.stop();
    await worker?.stop();
  });

  it("aborts the model request on the wire", async () => {
    expect(status).toBe("cancelled");
    await expect.poll(() => worker.abandoned, { timeout: 30_000 }).toBe(1);
  });

  it("makes no further model call and says in the trace what it cut off", () => {
    expect(worker.requests).toBe(1);
    expect(events.filter((event) => event.kind === "model.called" && event.payload.role === "worker")).toHaveLength(1);
    expect(events.find((event) => event.kind === "step.cancelled")?.payload).toMatchObject({
      runStatus: "cancelled",
      cutOff: "model_call",
      tool: null,
      turns: 1,
      calls: 0,
    });
    expect(events.some((event) => event.kind === "tool.called")).toBe(false);
  });

  it("records no failure for the evaluator or a retry to act on", () => {
    expect(events.some((event) => event.kind === "step.finished" || event.kind === "step.errored")).toBe(false);
    // The aborted call is traced with why it was aborted.
    expect(events.find((event) => event.kind === "model.failed")?.payload.error).toMatch(/ended \(cancelled\) while its step ran/);
  });
});
