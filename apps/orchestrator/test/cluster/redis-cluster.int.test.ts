import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, type MockInstance, vi } from "vitest";
import type { GoalInput } from "@rein/contracts";
import { isTerminal, type RunState } from "@rein/contracts/run";
import { ApprovalVerifier, generateKeyPair, generatePacketKeys } from "@rein/signing";
import { type ModelScriptInput, ScriptedProvider } from "@rein/models";
import { createRuntime, ReinConfig, type ReinRuntime } from "@rein/runtime";
import { plannerOfSteps } from "@rein/models/testing";
import { submitGoal, type RunningRoles, startRoles, buildTooling, type Tooling } from "@rein/controller";
import { type ClusterNode, LocalCluster } from "./local-cluster.ts";

const RUNS = 6;
const STEPS = 6;
/** One queue shard per master: queue traffic spreads over all three. */
const SHARDS = 3;

const goal: GoalInput = {
  text: "Cluster check: list the workspace a few times.",
  tools: [{ name: "list_files" }],
  budget: { maxSteps: STEPS + 2 },
};

/** The planner plans STEPS steps that each list the workspace, one at a time, then answers citing a listing. */
const script: ModelScriptInput = {
  planner: plannerOfSteps(
    Array.from({ length: STEPS }, (_, index) => ({
      title: `Listing ${index + 1}`,
      objective: "List the workspace and say what is there.",
      tools: ["list_files"],
      output_contract: { description: "one sentence", format: "text" },
    })),
    { answer: "the workspace was listed", claims: [{ text: "the workspace was listed", evidence: ["{{evidence:list_files}}"] }], gaps: [] },
  ),
  worker: [{ turns: [{ toolCalls: [{ name: "list_files", input: { path: "." } }] }, { text: "Listed the workspace." }] }],
};

describe("Rein on a Redis Cluster of three masters and three replicas", () => {
  let cluster: LocalCluster;
  let workspaceRoot: string;
  const runtimes: ReinRuntime[] = [];
  const roles: RunningRoles[] = [];
  let tooling: Tooling;
  let previousMaster: ClusterNode;
  let takenOverBy: ClusterNode;
  let servedAfterRestart: ClusterNode;
  let queueKey: string;
  let shardMasters: number[];
  let statesAtKill: RunState[];
  let states: RunState[];
  let consoleErrors: MockInstance<typeof console.error>;

  beforeAll(async () => {
    // ioredis prints an error event no listener takes ("[ioredis] Unhandled error event"); every client Rein opens has one.
    consoleErrors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    cluster = await LocalCluster.start();
    workspaceRoot = await mkdtemp(join(tmpdir(), "rein-cluster-ws-"));
    const config = ReinConfig.parse({
      redis: { cluster: cluster.seeds },
      prefix: "rein-cluster-test",
      workspaceRoot,
      queues: { shards: SHARDS },
    });
    const runtime = () => {
      const made = createRuntime(config);
      runtimes.push(made);
      return made;
    };
    const [client, control, plan, step, evaluate] = [runtime(), runtime(), runtime(), runtime(), runtime()];
    const keys = generatePacketKeys();
    tooling = await buildTooling(step, [], new ApprovalVerifier(generateKeyPair().publicKey));
    roles.push(
      startRoles(control, { roles: ["control"], packetPrivateKey: keys.privateKey }),
      startRoles(plan, { roles: ["plan"], providers: { planner: new ScriptedProvider(script, { name: "scripted-planner" }) } }),
      startRoles(step, {
        roles: ["step"],
        packetPublicKey: keys.publicKey,
        executor: tooling.executor,
        providers: { worker: new ScriptedProvider(script, { name: "scripted-worker" }) },
      }),
      startRoles(evaluate, { roles: ["evaluate"], providers: { judge: new ScriptedProvider({}, { name: "scripted-judge" }) } }),
    );

    const runIds = await Promise.all(
      Array.from({ length: RUNS }, async () => (await submitGoal(client, goal, { knownTools: ["list_files"] })).runId),
    );
    const read = () => Promise.all(runIds.map((runId) => client.runs.require(runId)));
    // Mid-run: a step of some run has finished, and no run has ended yet.
    await vi.waitFor(
      async () => {
        const current = await read();
        expect(current.some((state) => state.steps.some((each) => each.phase === "completed"))).toBe(true);
      },
      { timeout: 120_000, interval: 20 },
    );
    statesAtKill = await read();
    shardMasters = await Promise.all(
      client.keys.queuePrefixes().map(async (prefix) => (await cluster.masterOf(`${prefix}:step:any`)).port),
    );
    // The master of the first run's queue shard: every job of that run, and of the runs sharing its shard, goes through it.
    queueKey = client.keys.job("step", "any", runIds[0] as string);
    previousMaster = await cluster.masterOf(queueKey);
    await cluster.crash(previousMaster);
    takenOverBy = await cluster.failedOver(previousMaster, queueKey);
    // With min-replicas-to-write 1 and one replica per master, the new master refuses writes until it has
    // a replica again: the crashed node, restarted as a supervisor would, rejoins as that replica. Meanwhile
    // the new master stalls past the node timeout, as on a loaded machine: the restarted node, empty until
    // it has synced, must not be elected in its place (the master with the data would resync from it).
    await cluster.restart(previousMaster, { stalling: takenOverBy });
    servedAfterRestart = await cluster.masterOf(queueKey);
    await vi.waitFor(
      async () => {
        states = await read();
        const open = states.filter((state) => !isTerminal(state.status));
        // Where each open run stands and what the queues hold: what a failure here needs to be understood.
        const counts = await Promise.all(
          client.queues
            .all()
            .map(
              async (queue) =>
                `${queue.opts.prefix} ${queue.name} ${JSON.stringify(await queue.getJobCounts("active", "waiting", "delayed", "failed"))}`,
            ),
        );
        expect(
          open.map((state) => `${state.runId} ${state.status} ${state.steps.map((each) => each.phase).join(",")}`),
          counts.join("; "),
        ).toEqual([]);
      },
      { timeout: 240_000, interval: 200 },
    );
  }, 420_000);

  afterAll(async () => {
    for (const running of roles) await running.close(1_000);
    await tooling?.close();
    for (const runtime of runtimes) await runtime.close();
    await cluster?.stop();
    if (workspaceRoot) await rm(workspaceRoot, { recursive: true, force: true });
    vi.restoreAllMocks();
  }, 120_000);

  it("served each queue shard from its own master", () => {
    expect(new Set(shardMasters).size).toBe(SHARDS);
  });

  it("crashed a queue shard's master and failed over to its replica while runs were in flight", () => {
    expect(statesAtKill.filter((state) => isTerminal(state.status))).toEqual([]);
    expect(takenOverBy.port).not.toBe(previousMaster.port);
  });

  it("kept the slot on the replica that took over while the crashed node rejoined empty", () => {
    expect(servedAfterRestart.port).toBe(takenOverBy.port);
  });

  it("heard every Redis client's errors through the failover, printing none as unhandled", () => {
    expect(consoleErrors).not.toHaveBeenCalled();
  });

  it("ends every run done, each with all its steps", () => {
    expect(
      states.map((state) => [state.status, state.steps.filter((each) => each.phase === "completed").length, state.stopReason]),
    ).toEqual(states.map(() => ["done", STEPS, "the evaluator verified the answer"]));
  });
});
