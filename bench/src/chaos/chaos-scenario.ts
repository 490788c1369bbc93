import { setTimeout as delay } from "node:timers/promises";
import { knownToolNames, submitGoal } from "@rein/orchestrator";
import { scanKeys } from "@rein/runtime/keys";
import { type Check, checkRuns, hasSettled } from "./chaos-checks.ts";
import { chaosConfig, chaosFanOutGoal, chaosGoal, chaosScript, expectedEffects } from "./chaos-goal.ts";
import { Deployment } from "./deployment.ts";
import { REDIS_BATCH_WAIT_MS, REDIS_WAIT_MS, within } from "./within.ts";

export interface ChaosOptions {
  runs: number;
  lockMs: number;
  /** How long each step's wait lasts, so faults land inside steps. */
  stepWaitMs: number;
  /** Bound on the whole scenario's wait for every run to end. */
  settleMs: number;
  /** Shards each queue is split into (config `queues.shards`). @defaultValue 1 */
  shards?: number;
  /** Progress lines as they happen. */
  log(line: string): void;
}

export interface ChaosReport {
  runs: number;
  faults: string[];
  checks: Check[];
  seconds: number;
  dir: string;
}

/**
 * Deploys Rein as separate role processes on a private Redis, submits
 * `runs` goals with one countable effect each in waves, injects one fault
 * per wave, waits (bounded) for every run to end, and checks the outcome.
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const started = Date.now();
  const { lockMs, log } = options;
  const deployment = await Deployment.start({
    lockMs,
    stepConcurrency: 4,
    graceMs: 500,
    // The plan that ends a run is handed over in process (LocalHandoff); lasting a lock, it renews its lease and a kill lands in it.
    script: chaosScript(options.stepWaitMs, lockMs),
    config: (paths, prefix) => ({ ...chaosConfig(paths, prefix), queues: { shards: options.shards ?? 1 } }),
  });
  const { runtime } = deployment;
  const faults: string[] = [];
  const fault = (line: string) => {
    faults.push(line);
    log(`fault: ${line}`);
  };
  const runIds: string[] = [];
  /** How many times each run's effect must run: once per step that records it. */
  const effectsOf = new Map<string, number>();
  const knownTools = knownToolNames(runtime.config, []);
  const waves = 8;
  const submitWave = async () => {
    const batch = Math.min(Math.ceil(options.runs / waves), options.runs - runIds.length);
    for (let index = 0; index < batch; index += 1) {
      // Every third run fans out, so the faults also land on children side by side and on their join.
      const goal = runIds.length % 3 === 2 ? chaosFanOutGoal : chaosGoal;
      const { runId } = await within("submitting a goal", REDIS_WAIT_MS, submitGoal(runtime, goal, { knownTools }));
      runIds.push(runId);
      effectsOf.set(runId, expectedEffects(goal));
    }
    log(`submitted ${runIds.length}/${options.runs}`);
  };
  const stepQueues = Array.from({ length: runtime.queues.shardCount }, (_, shard) => runtime.queues.stepOf(undefined, shard));
  const activeSteps = async () =>
    within("reading the active step jobs", REDIS_WAIT_MS, Promise.all(stepQueues.map((queue) => queue.getJobs(["active"])))).then((jobs) =>
      jobs.flat(),
    );
  const bounded = async (what: string, condition: () => Promise<boolean>, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await condition())) {
      if (Date.now() > deadline) {
        const standing = await within("reading where things stand", REDIS_WAIT_MS, whereThingsStand()).catch(
          (error: Error) => error.message,
        );
        throw new Error(`chaos: ${what} did not happen within ${timeoutMs} ms; ${standing}`);
      }
      await delay(100);
    }
  };
  /** Step jobs by state and runs by status: what a stuck scenario needs to be understood. */
  const whereThingsStand = async () => {
    const jobs = await Promise.all(stepQueues.map((queue) => queue.getJobCounts("active", "waiting", "delayed", "failed", "completed")));
    const statuses = new Map<string, number>();
    for (const runId of runIds) {
      const status = (await runtime.runs.get(runId))?.status ?? "missing";
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    return `step jobs ${JSON.stringify(jobs)}, runs ${JSON.stringify(Object.fromEntries(statuses))}`;
  };
  /** Plans and evaluations running in process in place of their queue job: each holds a hand-off lease. */
  const handedJobs = async () =>
    (await within("scanning for hand-off leases", REDIS_WAIT_MS, scanKeys(deployment.redis.admin(), `${runtime.config.prefix}:handoff:*`)))
      .length;
  const stepsInFlight = () => bounded("a step in flight", async () => (await activeSteps()).length > 0, 60_000);

  try {
    let control = await deployment.startController();
    const planEvaluate = await deployment.startPlanAndEvaluate();
    const first = await deployment.startStepWorker();

    // 1. The same step killed twice: while `first` is the only step worker, what is active is its;
    //    once it is killed, `second` is the only one alive, so a recovered step it holds is one of those.
    await submitWave();
    await stepsInFlight();
    // By run and step, not job id: a recovered step may come back as a resumed attempt under a new job id.
    const stepOf = (jobId: string | undefined) => (jobId ?? "").split("-").slice(0, 3).join("-");
    const held = new Map((await activeSteps()).map((job) => [stepOf(job.id), { id: job.id, started: job.attemptsStarted }]));
    // Killed before the next worker starts: a process start on a loaded machine outlasts a step's wait,
    // so `first` would otherwise have finished what it held by the time it was killed.
    await first.signal("SIGKILL");
    fault(`SIGKILL step worker ${first.name} holding ${held.size} step(s)`);
    const second = await deployment.startStepWorker();
    let twice: string | undefined;
    await bounded(
      "a killed worker's step resumed on the next worker",
      async () => {
        const again = (await activeSteps()).find((job) => {
          const before = held.get(stepOf(job.id));
          return before !== undefined && (job.id !== before.id || job.attemptsStarted > before.started);
        });
        twice = again?.id;
        return again !== undefined;
      },
      lockMs * 6 + 30_000,
    );
    await second.signal("SIGKILL");
    fault(`SIGKILL step worker ${second.name} holding step job ${twice} again (its second kill)`);

    // 2. A graceful stop past its grace period.
    const third = await deployment.startStepWorker();
    await deployment.startStepWorker("proxy");
    await submitWave();
    await stepsInFlight();
    await deployment.startStepWorker();
    const stopped = await third.signal("SIGTERM");
    fault(`SIGTERM step worker ${third.name} (grace 500 ms)${stopped.forced ? "; it did not exit within 30 s and was SIGKILLed" : ""}`);

    // 3. The controller killed and restarted.
    await submitWave();
    await stepsInFlight();
    await control.signal("SIGKILL");
    fault("SIGKILL the controller");
    control = await deployment.startController("control-2");

    // 4. The plan-and-evaluate process killed while it runs a plan handed to it in process.
    await submitWave();
    let handed = 0;
    await bounded(
      "a plan handed over in process",
      async () => {
        handed = await handedJobs();
        return handed > 0;
      },
      60_000,
    );
    await planEvaluate.signal("SIGKILL");
    fault(`SIGKILL the plan-and-evaluate process running ${handed} handed plan(s) or evaluation(s)`);
    await deployment.startPlanAndEvaluate("plan-evaluate-2");

    // 5. Redis killed and restarted from its AOF.
    await submitWave();
    await stepsInFlight();
    await deployment.redis.kill();
    fault("SIGKILL redis-server");
    await delay(1_000);
    await deployment.redis.restart();
    fault("redis-server restarted from its AOF");

    // 6. Every client paused for longer than a lock lasts.
    await submitWave();
    await stepsInFlight();
    const pauseMs = Math.round(lockMs * 1.5);
    await deployment.redis.pause(pauseMs);
    fault(`CLIENT PAUSE ${pauseMs} ms ALL (lock ${lockMs} ms)`);
    await delay(pauseMs);

    // 7. The proxied step worker cut off from Redis for longer than a lock lasts.
    await submitWave();
    await stepsInFlight();
    const cutMs = lockMs * 2;
    deployment.proxy.partition();
    fault(`network partition between the proxied step worker and Redis for ${cutMs} ms`);
    await delay(cutMs);
    deployment.proxy.heal();

    await submitWave();
    const settled = Date.now() + options.settleMs;
    while (Date.now() < settled) {
      const states = await within(
        "reading the runs' states",
        REDIS_BATCH_WAIT_MS,
        Promise.all(runIds.map((runId) => runtime.runs.get(runId))),
      );
      const open = states.filter((state) => !state || !hasSettled(state)).length;
      if (open === 0) break;
      log(`waiting for ${open} run(s) to end`);
      await delay(2_000);
    }
    // Each run's state and trace are read: a second a run is far more than they take.
    const checks = await within(
      "checking the runs",
      Math.max(REDIS_BATCH_WAIT_MS, runIds.length * 1_000),
      checkRuns(runtime, runIds, runtime.config.workspaceRoot, effectsOf),
    );
    return { runs: runIds.length, faults, checks, seconds: Math.round((Date.now() - started) / 1000), dir: deployment.dir };
  } finally {
    for (const note of await deployment.stop()) log(`stop: ${note}`);
  }
}
