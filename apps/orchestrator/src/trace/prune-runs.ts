import type { Queue } from "bullmq";
import { ReinError } from "@rein/contracts";
import { isTerminal } from "@rein/contracts/run";
import { ApprovalStore, type ReinRuntime } from "@rein/runtime";
import { deleteKeys, forgetRuns, scanKeys } from "@rein/runtime/keys";
import { removeWorkspace } from "@rein/controller";
import { artifactIdsOf } from "./run-artifacts.ts";

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** "30d", "12h", "90m" → milliseconds. */
export function parseAge(text: string): number {
  const [, amount, unit] = /^(\d+)([smhdw])$/.exec(text.trim()) ?? [];
  const perUnit = unit === undefined ? undefined : UNITS[unit];
  if (amount === undefined || perUnit === undefined)
    throw new ReinError(
      "goal_invalid",
      `age ${JSON.stringify(text)} is not understood; expected a number and a unit s, m, h, d or w, e.g. 30d`,
    );
  return Number(amount) * perUnit;
}

export interface PruneOptions {
  olderThanMs: number;
  now?: Date;
  /** Also delete runs that have not ended. @defaultValue false */
  includeActive?: boolean;
  dryRun?: boolean;
}

export interface PruneResult {
  pruned: string[];
  /** Old runs left alone because they are still going (or waiting for a person). */
  kept: { runId: string; status: string }[];
}

/**
 * Deletes runs created before `now - olderThan` (by the run index's
 * createdAt score): state, trace, prompt blobs, artifacts, approvals,
 * idempotency records, checkpoints, tool cache, its jobs in every queue,
 * any other key that names the run, its entries in the run index and the
 * metrics cursors, and the workspace (a worktree is removed from its
 * repository; its branch stays).
 */
export async function pruneRuns(runtime: ReinRuntime, options: PruneOptions): Promise<PruneResult> {
  const cutoff = (options.now ?? new Date()).getTime() - options.olderThanMs;
  const runIds = await runtime.redis.zrangebyscore(runtime.keys.runIndex(), "-inf", `(${cutoff}`);
  const result: PruneResult = { pruned: [], kept: [] };
  for (const runId of runIds) {
    const state = await runtime.runs.get(runId);
    if (state && !isTerminal(state.status) && !options.includeActive) {
      result.kept.push({ runId, status: state.status });
      continue;
    }
    result.pruned.push(runId);
    if (options.dryRun) continue;
    const artifacts = artifactIdsOf(await runtime.trace.read(runId)).map((id) => runtime.keys.artifact(id));
    const checkpoints = await scanKeys(runtime.redis, `${runtime.keys.checkpoint(runId, "")}*`);
    const idempotency = await scanKeys(runtime.redis, `${runtime.keys.idempotency(runId)}:*`);
    const extra = [...artifacts, ...checkpoints, ...idempotency, runtime.keys.toolCache(runId)];
    await deleteKeys(runtime.redis, extra);
    await runtime.artifacts.removeRun(runId);
    const approvalIds = await new ApprovalStore(runtime.redis, runtime.keys, { ttlSeconds: runtime.config.approvals.ttlSeconds }).removeRun(
      runId,
    );
    await runtime.trace.remove(runId);
    await runtime.runs.remove(runId);
    await forgetRuns(runtime.redis, runtime.keys, [runId]);
    await removeRunJobs(runtime, runId, approvalIds);
    // Whatever else names the run (a key kind added since): every run key carries its id.
    await deleteKeys(
      runtime.redis,
      (await scanKeys(runtime.redis, `${runtime.config.prefix}:*${runId}*`)).filter(
        (key) => !runtime.keys.queuePrefixes().some((queuePrefix) => key.startsWith(`${queuePrefix}:`)),
      ),
    );
    await removeWorkspace(runtime.config.workspaceRoot, runId);
  }
  return result;
}

/**
 * The run's jobs, finished or waiting, in every queue: job ids name their
 * run (`step-<runId>-s1-1`, `control-finished-step-<runId>-…`), or one of
 * its approvals (`control-approval-<approvalId>`, the person's decision, and
 * `control-approval-expiry-<approvalId>`). Removed through BullMQ, so its
 * sets of finished jobs forget them too. A job still running (a run pruned
 * with --include-active) cannot be removed and is left to finish.
 */
async function removeRunJobs(runtime: ReinRuntime, runId: string, approvalIds: readonly string[]): Promise<void> {
  const jobs = new Map<string, { queue: Queue; jobId: string }>();
  const shardPrefixes = runtime.keys.queuePrefixes().map((prefix) => `${prefix}:`);
  for (const named of [runId, ...approvalIds]) {
    // One scan over every shard's keys (each shard's tag starts `{queues`), not one per shard.
    for (const key of await scanKeys(runtime.redis, `${runtime.keys.prefix}:{queues*}:*${named}*`)) {
      const shard = shardPrefixes.findIndex((prefix) => key.startsWith(prefix));
      const [name, jobId] = shard === -1 ? [] : key.slice((shardPrefixes[shard] as string).length).split(":");
      const queue = name === undefined ? undefined : runtime.queues.named(name, shard);
      if (jobId && queue) jobs.set(`${shard}:${name}:${jobId}`, { queue, jobId });
    }
  }
  for (const { queue, jobId } of jobs.values()) await queue.remove(jobId).catch(() => 0);
}
