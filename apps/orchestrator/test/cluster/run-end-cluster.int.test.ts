import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ReinError } from "@rein/contracts";
import { RunState } from "@rein/contracts/run";
import { createRuntime, RedisRateLimiter, ReinConfig, type ReinRuntime, RunEndWatch } from "@rein/runtime";
import { readFleetRateBudgets } from "../../src/rate-limit/fleet-rate-budgets.ts";
import { LocalCluster } from "./local-cluster.ts";

const stored = RunState.parse(
  JSON.parse(readFileSync(new URL("../../../../packages/runtime/test/fixtures/run-state.v1.json", import.meta.url), "utf8")),
);

/**
 * On a Redis Cluster the run's end is published from inside the script that
 * writes its status (on the run's slot's master) and must still reach a
 * worker subscribed through whichever node its cluster client picked.
 */
let cluster: LocalCluster;
beforeAll(async () => {
  cluster = await LocalCluster.start();
}, 180_000);
afterAll(async () => {
  await cluster?.stop();
});

describe("a run's end on a Redis Cluster", { timeout: 180_000 }, () => {
  let controller: ReinRuntime;
  let worker: ReinRuntime;
  let watch: RunEndWatch;

  beforeAll(async () => {
    const config = ReinConfig.parse({ redis: { cluster: cluster.seeds }, prefix: `rein-cluster-end-${process.pid}` });
    controller = createRuntime(config);
    worker = createRuntime(config);
    watch = new RunEndWatch(worker.redis, worker.keys, worker.logger);
    await watch.start();
  }, 180_000);
  afterAll(async () => {
    await watch?.close();
    await controller?.close();
    await worker?.close();
  });

  it("stops the watched step of a run the controller cancels", async () => {
    const runIds = ["run_cluster_a", "run_cluster_b", "run_cluster_c"];
    const steps = runIds.map((runId) => watch.watch(runId));
    const reasons = steps.map(
      (step) => new Promise<unknown>((resolve) => step.signal.addEventListener("abort", () => resolve(step.signal.reason), { once: true })),
    );
    for (const runId of runIds) {
      const state = { ...stored, runId, version: 0, status: "executing" as const };
      await controller.runs.create(state);
      await controller.runs.save({ ...state, version: 1, status: "cancelled" }, 0);
    }
    for (const reason of await Promise.all(reasons)) {
      expect(ReinError.hasCode(reason, "run_ended")).toBe(true);
      expect((reason as ReinError).details.status).toBe("cancelled");
    }
  });
});

describe("rein models on a Redis Cluster", { timeout: 60_000 }, () => {
  const budget = { requestsPerMinute: 60, inputTokensPerMinute: 30_000, maxInFlight: 4 };
  const scope = { provider: "claude", model: "claude-sonnet-5-5" };

  it("reads what the provider's headers taught the fleet through the cluster", async () => {
    const config = ReinConfig.parse({
      redis: { cluster: cluster.seeds },
      prefix: `rein-cluster-limits-${process.pid}`,
      providers: { claude: { kind: "anthropic", limits: budget } },
      roles: Object.fromEntries(["planner", "worker", "judge"].map((role) => [role, { provider: "claude", model: scope.model }])),
    });
    const runtime = createRuntime(config, { logLevel: "silent" });
    try {
      await new RedisRateLimiter(runtime.redis, runtime.keys).observe(scope, { requests: { limit: 50, remaining: 45 } }, budget);
    } finally {
      await runtime.close();
    }
    const reading = await readFleetRateBudgets(config, 10_000);
    expect("budgets" in reading ? reading.budgets.map((each) => [each.model, each.learned.requests?.limit]) : reading.unread).toEqual([
      [scope.model, 50],
    ]);
  });

  it("says no cluster answered when none does", async () => {
    const config = ReinConfig.parse({
      redis: { cluster: ["redis://127.0.0.1:1"] },
      providers: { claude: { kind: "anthropic", limits: budget } },
      roles: Object.fromEntries(["planner", "worker", "judge"].map((role) => [role, { provider: "claude", model: scope.model }])),
    });
    expect(await readFleetRateBudgets(config, 500)).toEqual({
      unread: expect.stringMatching(/^no Redis Cluster answers at redis:\/\/127\.0\.0\.1:1 \(.+\)$/),
    });
  });
});
