import { createServer, request as httpRequest, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GoalInput } from "@rein/contracts";
import type { TraceEvent } from "@rein/contracts/run";
import type { ModelScriptInput } from "@rein/models";
import { type FakeServer, startScriptedWireServer } from "@rein/models/testing";
import { closeNow, listenOnLoopback } from "./support/api-server.ts";
import {
  type ConfiguredHarness,
  MODEL_KEYS,
  plannerAndWorker,
  scriptedPlanner,
  startConfiguredHarness,
} from "./support/configured-harness.ts";

/**
 * The worker's model endpoint: a request for the step whose prompt names
 * `answered` goes to a scripted wire server; every other one is taken and
 * never answered, and the endpoint notices when a client gives it up.
 */
interface SplitModel {
  baseURL: string;
  hung: number;
  abandoned: number;
  /** Resolves once `count` requests hang. */
  hanging(count: number): Promise<void>;
  stop(): Promise<void>;
}

async function startSplitModel(answered: readonly string[], scripted: FakeServer): Promise<SplitModel> {
  const waiters: { count: number; resolve: () => void }[] = [];
  const model = { hung: 0, abandoned: 0 };
  const server: Server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const body = Buffer.concat(chunks);
      const text = body.toString("utf8");
      if (answered.some((marker) => text.includes(marker))) {
        const forwarded = httpRequest(
          `${scripted.baseURL}${incoming.url ?? ""}`,
          { method: incoming.method, headers: incoming.headers },
          (reply) => {
            response.writeHead(reply.statusCode ?? 502, reply.headers);
            reply.pipe(response);
          },
        );
        forwarded.end(body);
        return;
      }
      model.hung += 1;
      response.on("close", () => {
        if (!response.writableEnded) model.abandoned += 1;
      });
      for (const waiter of waiters) if (model.hung >= waiter.count) waiter.resolve();
    });
  });
  const { base } = await listenOnLoopback(server);
  return Object.assign(model, {
    baseURL: base,
    hanging: (count: number) =>
      new Promise<void>((resolve) => {
        if (model.hung >= count) resolve();
        else waiters.push({ count, resolve });
      }),
    stop: () => closeNow(server),
  });
}

/** Follows the run's trace until `count` events of `kind` are written. */
async function traceCounts(harness: ConfiguredHarness, runId: string, kind: string, count: number): Promise<void> {
  const following = new AbortController();
  let seen = 0;
  try {
    for await (const event of harness.runtime.trace.follow(runId, following.signal, 200)) {
      if (event.kind === kind) seen += 1;
      if (seen === count) return;
    }
  } finally {
    following.abort();
  }
}

const GOAL = "Look up three regions side by side";
const lookup = (region: string, extra: Record<string, unknown> = {}) => ({
  title: `Look up ${region}`,
  objective: `Report what the ${region} source says.`,
  tools: [],
  output_contract: { description: "one sentence", format: "text" },
  ...extra,
});
const script: ModelScriptInput = {
  planner: [
    {
      match: ["Completed steps: none", `Goal: ${GOAL}`],
      turns: [
        {
          output: {
            current_step: null,
            done: false,
            parallel: {
              // Region A's criterion cannot be run as written (a pattern no engine matches safely): the evaluator says replan.
              steps: [
                lookup("region-a", {
                  acceptance_criteria: [{ kind: "output_matches", description: "says a region", pattern: "(a+)+(" }],
                }),
                lookup("region-b"),
                lookup("region-c"),
              ],
              join: { rule: "all" },
            },
          },
        },
      ],
    },
    {
      match: `Goal: ${GOAL}`,
      turns: [{ output: { current_step: null, done: true, answer: { answer: "stopped", claims: [], gaps: ["the group failed"] } } }],
    },
  ],
  worker: [{ match: "region-a", turns: [{ text: "Region A reports nothing." }] }],
};

/**
 * Runs `goal` to its end on real workers and Redis, the worker model answering only requests that name one of
 * `answered` and hanging the rest; waits until `cancelled` steps have traced where they stopped.
 */
async function runWithHungWorkers(script: ModelScriptInput, answered: readonly string[], goal: GoalInput, cancelled: number) {
  const planner = await scriptedPlanner(script);
  const scriptedWorker = await startScriptedWireServer({ format: "anthropic", role: "worker", script, model: "fake-worker" });
  const worker = await startSplitModel(answered, scriptedWorker);
  const harness = await startConfiguredHarness({ config: plannerAndWorker(planner, worker), env: MODEL_KEYS });
  const close = async () => {
    await harness.close();
    await planner.stop();
    await worker.stop();
    await scriptedWorker.stop();
  };
  const runId = await harness.submit(goal);
  const { status } = await harness.waitFor(runId);
  // Each cancelled worker traces where it stopped once its loop has ended: from then on it can call nothing.
  await traceCounts(harness, runId, "step.cancelled", cancelled);
  return { status, events: await harness.runtime.trace.read(runId), worker, close };
}

describe("an all group with one failing member, on real workers and Redis", { timeout: 120_000 }, () => {
  let run: Awaited<ReturnType<typeof runWithHungWorkers>>;
  let worker: SplitModel;
  let status: string;
  let events: TraceEvent[];

  beforeAll(async () => {
    run = await runWithHungWorkers(script, ["region-a"], { text: GOAL, kind: "question", maxParallel: 3 }, 2);
    ({ status, events, worker } = run);
  }, 120_000);
  afterAll(() => run?.close());

  it("cancels the siblings still running when the failing member's verdict decides the join", () => {
    const joined = events.find((event) => event.kind === "group.joined");
    expect(joined?.payload).toMatchObject({ outcome: "failed", cancelled: ["s2", "s3"] });
    expect(joined?.payload.inputs).toEqual([
      { stepId: "s1", phase: "failed", decision: "replan" },
      { stepId: "s2", phase: "cancelled", decision: null },
      { stepId: "s3", phase: "cancelled", decision: null },
    ]);
  });

  it("aborts their model requests on the wire and calls nothing more", async () => {
    await expect.poll(() => worker.abandoned, { timeout: 30_000 }).toBe(2);
    expect(worker.hung).toBe(2);
    const workerCalls = events.filter((event) => event.kind === "model.called" && event.payload.role === "worker");
    expect(workerCalls.map((event) => event.stepId).sort()).toEqual(["s1", "s2", "s3"]);
    for (const stepId of ["s2", "s3"]) {
      expect(events.find((event) => event.kind === "step.cancelled" && event.stepId === stepId)?.payload).toMatchObject({
        cutOff: "model_call",
      });
      expect(events.some((event) => event.kind === "step.finished" && event.stepId === stepId)).toBe(false);
    }
  });

  it("goes on by the verdict table: replan asks the planner again, which ends the run", () => {
    expect(events.filter((event) => event.kind === "plan.requested")).toHaveLength(2);
    expect(status).toBe("done");
  });
});

const RACE = "Ask two mirrors at once";
const mirror = (name: string) => ({
  name: "delegate",
  input: {
    reason: "either mirror will do",
    task: {
      title: `Ask ${name}`,
      objective: `Report what ${name} says.`,
      tools: [{ name: "read_file", scope: {} }],
      outputDescription: "one sentence",
    },
    ...(name === "mirror-a" ? { join: { rule: "any" } } : {}),
  },
});
const raceScript: ModelScriptInput = {
  planner: [
    {
      match: ["Completed steps: none", `Goal: ${RACE}`],
      turns: [
        {
          output: {
            current_step: {
              title: "Race the mirrors",
              objective: "Query both mirrors and report the first answer (PARENT-RACE).",
              tools: ["read_file"],
            },
            done: false,
          },
        },
      ],
    },
    {
      match: `Goal: ${RACE}`,
      turns: [
        {
          output: {
            current_step: null,
            done: true,
            answer: { answer: "mirror-a answered", claims: [], gaps: ["mirror-b was not waited for"] },
          },
        },
      ],
    },
  ],
  worker: [
    { match: "Report what mirror-a says", turns: [{ text: "Mirror A says hello." }] },
    { match: "PARENT-RACE", turns: [{ toolCalls: [mirror("mirror-a"), mirror("mirror-b")] }, { text: "Mirror A answered first." }] },
  ],
};

describe("a worker's any group, on real workers and Redis", { timeout: 120_000 }, () => {
  let run: Awaited<ReturnType<typeof runWithHungWorkers>>;
  let worker: SplitModel;
  let status: string;
  let events: TraceEvent[];

  beforeAll(async () => {
    // The parent's turns and mirror A are answered; mirror B's request hangs until it is given up.
    const goal = { text: RACE, kind: "question" as const, maxParallel: 3, tools: [{ name: "read_file", scope: {} }] };
    run = await runWithHungWorkers(raceScript, ["PARENT-RACE", "Report what mirror-a says"], goal, 1);
    ({ status, events, worker } = run);
  }, 120_000);
  afterAll(() => run?.close());

  it("resumes the parent when the first child passes, with the loser answered as cancelled and its request aborted", async () => {
    const started = events.find((event) => event.kind === "group.started");
    expect(started?.payload).toMatchObject({ parentStepId: "s1", stepIds: ["s1.1", "s1.2"], join: { rule: "any" } });
    const joined = events.find((event) => event.kind === "group.joined");
    expect(joined?.payload).toMatchObject({ outcome: "joined", cancelled: ["s1.2"] });
    const returned = events
      .filter((event) => event.kind === "step.returned")
      .map((event) => [event.payload.childStepId, event.payload.status]);
    expect(returned).toEqual([
      ["s1.1", "completed"],
      ["s1.2", "cancelled"],
    ]);
    await expect.poll(() => worker.abandoned, { timeout: 30_000 }).toBe(1);
    expect(status).toBe("done");
  });
});
