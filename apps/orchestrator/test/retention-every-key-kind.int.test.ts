import { describe, expect, it } from "vitest";
import type { ModelScriptInput } from "@rein/models";
import type { ReinRuntime } from "@rein/runtime";
import { until } from "@rein/contracts/testing";
import { decideApproval } from "../src/approvals/decide-approval.ts";
import { TraceFold } from "../src/metrics/trace-fold.ts";
import { pruneRuns } from "../src/trace/prune-runs.ts";
import { harnessesPerTest } from "./support/harnesses-per-test.ts";
import { isDeploymentKey, isQueueJobKey, keysWithTtl } from "./support/keys-left.ts";
import { probeTool } from "./support/probe-run.ts";
import { countingRestartTool } from "./support/restart-tool.ts";

const RUN_TTL_SECONDS = 3_600;

const probe = probeTool({
  description: "Read a status value and its history. Read-only.",
  // Longer than an observation may be, so the full output is kept as an artifact of the run.
  output: (key) => `${key}: pending\n${"history: pending\n".repeat(2_000)}`,
});

const planned = (title: string, objective: string, tools: string[]) => ({
  output: {
    current_step: { title, objective, tools, output_contract: { description: "one line", format: "text" } },
    next_steps: [],
    risks: [],
    done: false,
  },
});

/**
 * A run that leaves every kind of key a run can: a child step (delegation)
 * whose read is kept as an artifact, a context request the planner answers,
 * and a destructive call a person approves, with its intent and outcome records.
 */
const script: ModelScriptInput = {
  planner: [
    { match: "Completed steps: none", turns: [planned("Survey the status", "Have a child step read the status with probe.", ["probe"])] },
    {
      match: "Completed steps: 1",
      turns: [planned("Restart the api", "Ask what the status was, then restart payment-api with restart_service.", ["restart_service"])],
    },
    {
      match: "Completed steps: 2",
      turns: [
        {
          output: {
            current_step: null,
            done: true,
            answer: {
              answer: "payment-api was restarted",
              claims: [{ text: "payment-api was restarted", evidence: ["{{evidence:restart_service}}"] }],
              gaps: [],
            },
          },
        },
      ],
    },
    { match: "Context request from step s3", turns: [{ output: { evidence_ids: ["{{evidence:probe}}"] } }] },
  ],
  worker: [
    {
      match: "Task: Survey the status",
      turns: [
        {
          toolCalls: [
            {
              name: "delegate",
              input: {
                reason: "reading is a separate job",
                task: {
                  title: "Probe once",
                  objective: "Read the status with probe",
                  tools: [{ name: "probe", scope: {} }],
                  budget: { maxTurns: 3 },
                },
              },
            },
          ],
        },
        { text: "the child read the status: pending" },
      ],
    },
    { match: "Task: Probe once", turns: [{ toolCalls: [{ name: "probe", input: {} }] }, { text: "status: pending" }] },
    {
      match: "Task: Restart the api",
      turns: [
        { toolCalls: [{ name: "request_context", input: { question: "what did the status read say?" } }] },
        { toolCalls: [{ name: "restart_service", input: { service: "payment-api" } }] },
        { text: "restarted payment-api" },
      ],
    },
  ],
};

/** A run id whose queue jobs go to shard `shard`. */
function runIdOnShard(runtime: ReinRuntime, shard: number): string {
  for (let index = 0; ; index += 1) {
    const runId = `run_keykinds${index}`;
    if (runtime.keys.shardOf(runId) === shard) return runId;
  }
}

const namesRun = (runtime: ReinRuntime, runId: string, artifacts: string[]) => (key: string) =>
  key.includes(runId) || artifacts.some((artifactId) => key === runtime.keys.artifact(artifactId));

// A whole run of three steps, a person's approval and a context answer on a loaded machine: sized generously, not a timing assertion.
describe("what a finished run of every key kind leaves in Redis", { timeout: 240_000 }, () => {
  const harnesses = harnessesPerTest();

  // With 3 shards the run is placed on the last one, so prune must find its jobs off the first shard too.
  it.each([1, 3])(
    "gives each of its keys a TTL within retention.runTtlSeconds, and rein runs prune removes every key of the run and its index and metrics entries (queues in %i shard(s))",
    async (shards) => {
      const restart = countingRestartTool();
      const harness = await harnesses.start(script, [probe, restart.tool], {
        config: { retention: { runTtlSeconds: RUN_TTL_SECONDS }, queues: { shards } },
      });
      const { runtime } = harness;
      const runId = await harness.submit(
        { text: "Restart payment-api once its status is known", tools: [{ name: "probe" }, { name: "restart_service" }] },
        { runId: runIdOnShard(runtime, shards - 1) },
      );
      const waiting = await harness.waitFor(
        runId,
        (state) => state.status === "waiting_approval" || ["done", "failed", "escalated", "cancelled"].includes(state.status),
      );
      expect(waiting.status, waiting.stopReason).toBe("waiting_approval");
      const approvalId = waiting.pendingApprovals[0] as string;
      await decideApproval(runtime, harness.desk, approvalId, { decision: "approved", approver: "test:oncall" });
      const state = await harness.waitFor(runId);
      expect(state.status, state.stopReason).toBe("done");
      expect(restart.restarts()).toBe(1);
      // The child is s1.1; step numbers count it, so the restart is s3.
      expect(state.steps.map((step) => step.stepId)).toEqual(["s1", "s1.1", "s3"]);
      expect((await runtime.trace.read(runId)).filter((event) => event.kind === "context.answered")).toHaveLength(1);
      await until("the deadline to be forgotten", async () => (await runtime.redis.zscore(runtime.keys.runDeadlines(), runId)) === null);
      // A scrape folds the run's trace: its cursor is one more key kind the run leaves.
      await new TraceFold(runtime).totalsNow();

      const left = await keysWithTtl(runtime);
      const artifacts = await runtime.redis.smembers(runtime.keys.runArtifacts(runId));
      const ofRun = namesRun(runtime, runId, artifacts);
      const idempotency = [...left.keys()].filter((key) => key.startsWith(`${runtime.keys.idempotency(runId)}:`));
      // Every kind was written: artifacts, the approval, the restart's record, each step's owner key.
      expect(artifacts.length).toBeGreaterThan(0);
      expect(idempotency).toHaveLength(1);
      expect(left.has(runtime.keys.approval(approvalId))).toBe(true);
      for (const stepId of ["s1", "s1.1", "s3"]) expect(left.has(runtime.keys.stepOwner(runId, stepId))).toBe(true);
      expect(await runtime.redis.hget(runtime.keys.metricsCursors(), runId)).toBe("end");

      const jobsOnShard = [...left.keys()].filter(
        (key) => key.startsWith(`${runtime.keys.queuePrefix(shards - 1)}:`) && key.includes(runId),
      );
      expect(jobsOnShard.length).toBeGreaterThan(0);

      const kept = [...left].filter(([key]) => !isDeploymentKey(runtime, key) && !isQueueJobKey(runtime, key));
      expect(kept.filter(([, ttl]) => !(ttl > 0 && ttl <= RUN_TTL_SECONDS))).toEqual([]);
      // The approval is the run's own: its key carries the approval id, not the run id.
      expect(kept.map(([key]) => key)).toEqual(expect.arrayContaining([runtime.keys.approval(approvalId), ...idempotency]));
      // Its action pointer, shared by every run that asks for the same action, forgets the ended run at once.
      const approval = await harness.desk.store.get(approvalId);
      expect(await runtime.redis.hget(runtime.keys.approvalByAction(approval?.actionHash ?? ""), `${runId}:s3`)).toBeNull();
      // The run index forgets the run when its keys expire.
      const forgetAt = Number(await runtime.redis.zscore(runtime.keys.runExpiries(), runId));
      expect(forgetAt).toBeGreaterThan(Date.now());
      expect(forgetAt).toBeLessThanOrEqual(Date.now() + RUN_TTL_SECONDS * 1_000);

      const pruned = await pruneRuns(runtime, { olderThanMs: 0, now: new Date(Date.now() + 1_000) });
      expect(pruned.pruned).toEqual([runId]);
      const after = await keysWithTtl(runtime);
      expect([...after.keys()].filter((key) => ofRun(key) || key === runtime.keys.approval(approvalId))).toEqual([]);
      expect([...after].filter(([key, ttl]) => ttl === -1 && !isDeploymentKey(runtime, key))).toEqual([]);
      expect(await runtime.redis.zscore(runtime.keys.runIndex(), runId)).toBeNull();
      expect(await runtime.redis.zscore(runtime.keys.runExpiries(), runId)).toBeNull();
      expect(await runtime.redis.hget(runtime.keys.metricsCursors(), runId)).toBeNull();
      expect(await runtime.redis.zscore(runtime.keys.approvalIndex(), approvalId)).toBeNull();
    },
  );
});
