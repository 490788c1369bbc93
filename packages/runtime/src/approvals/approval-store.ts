import type { ApprovalDesk } from "@rein/tools";
import type { RedisClient } from "../redis/redis-client.ts";
import { z } from "zod";
import { ACTIVE_RUN_RECORD_TTL_SECONDS } from "../config/retention-config.ts";
import { ReinError, newId } from "@rein/contracts";
import { APPROVAL_SCHEMA_VERSION, Approval, type ApprovalStatus } from "@rein/contracts/run";
import { type ApprovalAction, actionHashOf } from "@rein/contracts/calls";
import type { RedisKeys } from "../redis/keys.ts";
import { expireWithin } from "../stores/run-retention.ts";
import type { ApprovalSigner } from "@rein/signing";
import { CONSUME, DECIDE, EXPIRE_IF_DUE, EXPIRE_PENDING } from "./approval-scripts.ts";

export interface ApprovalStoreOptions {
  /** Seconds a pending approval waits for a decision (config `approvals.ttlSeconds`). */
  ttlSeconds: number;
  /**
   * Seconds an approval is kept after it expires, for the audit trail, while
   * its run goes on; its run's retirement shortens it.
   * @defaultValue ACTIVE_RUN_RECORD_TTL_SECONDS (7 days)
   */
  retentionSeconds?: number;
  /** @defaultValue Date.now */
  now?: () => number;
}

export const ApprovalDecisionInput = z.object({
  decision: z.enum(["approved", "denied"]),
  approver: z.string().min(1, "an approval decision must name who made it"),
  note: z.string().optional(),
  reason: z.string().optional(),
});
export type ApprovalDecisionInput = z.infer<typeof ApprovalDecisionInput>;

export interface ApprovalFilter {
  runId?: string;
  stepId?: string;
  status?: ApprovalStatus;
}

/**
 * Approvals in Redis. An approval is bound to one action (tool, args, scope)
 * in one run and step by `actionHash`; only `decide` (called by a person's
 * client with the approval private key, never by a worker) moves it out of
 * pending and signs the decision, and only `consume` turns an approval into
 * the single execution it allows. The store believes nothing it reads; the
 * gate verifies the signature before acting on a decision.
 */
export class ApprovalStore implements ApprovalDesk {
  private readonly now: () => number;
  private readonly retentionSeconds: number;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly options: ApprovalStoreOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.retentionSeconds = options.retentionSeconds ?? ACTIVE_RUN_RECORD_TTL_SECONDS;
  }

  /**
   * The pending approval this call asked for before (its step was
   * re-dispatched), reused, else a new one bound to `call` (`<attempt>:<the
   * model's call id>`): the one call a decision will cover.
   */
  async ask(runId: string, stepId: string, action: ApprovalAction, call: string): Promise<{ approval: Approval; reused: boolean }> {
    const actionHash = actionHashOf(action);
    const latest = await this.findForAction(runId, stepId, actionHash);
    if (latest?.status === "pending" && latest.schemaVersion === APPROVAL_SCHEMA_VERSION && latest.call === call)
      return { approval: latest, reused: true };
    return { approval: await this.create(runId, stepId, action, call), reused: false };
  }

  async create(runId: string, stepId: string, action: ApprovalAction, call: string): Promise<Approval> {
    const createdAtMs = this.now();
    const expiresAtMs = createdAtMs + this.options.ttlSeconds * 1000;
    const approval = Approval.parse({
      schemaVersion: APPROVAL_SCHEMA_VERSION,
      approvalId: newId("apr"),
      runId,
      stepId,
      tool: action.tool,
      args: action.args,
      scope: action.scope,
      actionHash: actionHashOf(action),
      call,
      status: "pending",
      createdAt: new Date(createdAtMs).toISOString(),
      expiresAt: new Date(expiresAtMs).toISOString(),
    });
    const { status: _status, ...fixed } = approval;
    const key = this.keys.approval(approval.approvalId);
    const pointer = this.keys.approvalByAction(approval.actionHash);
    const keepSeconds = this.options.ttlSeconds + this.retentionSeconds;
    const ofRun = this.keys.runApprovals(runId);
    await this.redis
      .multi()
      .hset(key, {
        data: JSON.stringify(fixed),
        status: "pending",
        actionHash: approval.actionHash,
        runId,
        stepId,
        expiresAtMs: String(expiresAtMs),
      })
      .expire(key, keepSeconds)
      .hset(pointer, `${runId}:${stepId}`, approval.approvalId)
      .expire(pointer, keepSeconds)
      .sadd(ofRun, approval.approvalId)
      .expire(ofRun, keepSeconds)
      .zadd(this.keys.approvalIndex(), createdAtMs, approval.approvalId)
      // Approvals asked longer ago than an approval is kept are gone: their index entries go too.
      .zremrangebyscore(this.keys.approvalIndex(), "-inf", `(${createdAtMs - keepSeconds * 1000}`)
      .exec();
    return approval;
  }

  async get(approvalId: string): Promise<Approval | null> {
    const key = this.keys.approval(approvalId);
    await EXPIRE_IF_DUE.run(this.redis, [key], [String(this.now())]);
    const fields = await this.redis.hgetall(key);
    if (!fields.data) return null;
    const parsed = Approval.safeParse({
      ...JSON.parse(fields.data),
      status: fields.status,
      approver: fields.approver,
      note: fields.note,
      reason: fields.reason,
      decidedAt: fields.decidedAt,
      signature: fields.signature,
      consumedBy: fields.consumedBy,
    });
    if (!parsed.success) {
      throw new ReinError("contract_invalid", `approval ${approvalId} in Redis is malformed: ${parsed.error.message}`);
    }
    if (parsed.data.approvalId !== approvalId) {
      throw new ReinError(
        "contract_invalid",
        `approval ${approvalId} in Redis holds the record of ${parsed.data.approvalId}; expected its own`,
      );
    }
    return parsed.data;
  }

  /** The latest approval asked for this action in this run and step. */
  async findForAction(runId: string, stepId: string, actionHash: string): Promise<Approval | null> {
    const approvalId = await this.redis.hget(this.keys.approvalByAction(actionHash), `${runId}:${stepId}`);
    return approvalId ? this.get(approvalId) : null;
  }

  async list(filter: ApprovalFilter = {}): Promise<Approval[]> {
    const ids = await this.redis.zrange(this.keys.approvalIndex(), 0, -1);
    const approvals: Approval[] = [];
    for (const approvalId of ids) {
      const approval = await this.get(approvalId);
      if (!approval) {
        // Past its retention; drop it from the index too.
        await this.redis.zrem(this.keys.approvalIndex(), approvalId);
        continue;
      }
      if (filter.runId && approval.runId !== filter.runId) continue;
      if (filter.stepId && approval.stepId !== filter.stepId) continue;
      if (filter.status && approval.status !== filter.status) continue;
      approvals.push(approval);
    }
    return approvals;
  }

  /**
   * Deletes a run's approvals and their action pointers (for `rein runs prune`).
   * @returns the ids of the run's approvals, so their control events can go too
   */
  async removeRun(runId: string): Promise<string[]> {
    const approvals = await this.list({ runId });
    const listed = await this.redis.smembers(this.keys.runApprovals(runId));
    const multi = this.redis.multi();
    for (const approval of approvals) {
      multi.hdel(this.keys.approvalByAction(approval.actionHash), `${runId}:${approval.stepId}`);
    }
    const approvalIds = [...new Set([...approvals.map((approval) => approval.approvalId), ...listed])];
    for (const approvalId of approvalIds) {
      multi.del(this.keys.approval(approvalId));
      multi.zrem(this.keys.approvalIndex(), approvalId);
    }
    multi.del(this.keys.runApprovals(runId));
    await multi.exec();
    return approvalIds;
  }

  /**
   * What is left of an ended run's approvals: a pending one expires, so no
   * person approves an action its run will never take; each is kept for the
   * audit trail `ttlSeconds` at most (a shorter TTL of its own stands), and
   * its action pointer goes at once, since only a step of the run looks an
   * approval up by its action, and no step works on an ended run.
   * Idempotent, as the run's retirement is.
   */
  async retireRun(runId: string, ttlSeconds: number): Promise<void> {
    const ofRun = this.keys.runApprovals(runId);
    const approvalIds = await this.redis.smembers(ofRun);
    // Most runs ask for none: then the set does not exist, and there is nothing to expire.
    if (approvalIds.length === 0) return;
    const keys = approvalIds.map((approvalId) => this.keys.approval(approvalId));
    await Promise.all(keys.map((key) => EXPIRE_PENDING.run(this.redis, [key], [])));
    const pointers = await Promise.all(keys.map((key) => this.redis.hmget(key, "actionHash", "stepId")));
    const fields = pointers.filter((pointer): pointer is [string, string] => Boolean(pointer[0] && pointer[1]));
    if (fields.length > 0) {
      const forget = this.redis.multi();
      for (const [actionHash, stepId] of fields) forget.hdel(this.keys.approvalByAction(actionHash), `${runId}:${stepId}`);
      await forget.exec();
    }
    await expireWithin(this.redis, [...keys, ofRun], ttlSeconds);
  }

  /**
   * A person's decision, signed whole (status, approver, note, reason, the
   * call and expiry) with the approval private key over what the person was
   * shown. Only a pending, unexpired approval whose stored action still
   * matches its hash, and whose expiry is within `ttlSeconds` of now, can be
   * decided, once.
   */
  async decide(approvalId: string, input: ApprovalDecisionInput, signer: ApprovalSigner): Promise<Approval> {
    const decision = ApprovalDecisionInput.parse(input);
    const pending = await this.get(approvalId);
    if (!pending) throw new ReinError("not_found", `approval ${approvalId} does not exist`);
    if (pending.status !== "pending") throw notPending(approvalId, pending.status);
    if (actionHashOf(pending) !== pending.actionHash) {
      throw new ReinError(
        "approval_invalid",
        `approval ${approvalId} was altered in Redis: its action no longer matches its hash; it cannot be decided`,
      );
    }
    const nowMs = this.now();
    // The signed expiry bounds how long the decision is worth anything, so it may not be later than this deployment ever grants.
    if (Date.parse(pending.expiresAt) > nowMs + this.options.ttlSeconds * 1000) {
      throw new ReinError(
        "approval_invalid",
        `approval ${approvalId} was altered in Redis: it expires at ${pending.expiresAt}, later than approvals.ttlSeconds (${this.options.ttlSeconds}) allows; it cannot be decided`,
      );
    }
    const decidedAt = new Date(nowMs).toISOString();
    // An empty note or reason is stored as none, so it is signed as none.
    const note = decision.note || null;
    const reason = decision.reason || null;
    // A version 1 record names no call: its decision is signed (the step resumes) but covers no call, so the call asks again.
    const signature = signer.sign({
      approvalId,
      actionHash: pending.actionHash,
      runId: pending.runId,
      stepId: pending.stepId,
      call: pending.call ?? "unbound",
      decision: decision.decision,
      approver: decision.approver,
      note,
      reason,
      decidedAt,
      expiresAt: pending.expiresAt,
    });
    const outcome = await DECIDE.run(
      this.redis,
      [this.keys.approval(approvalId)],
      [
        decision.decision,
        decision.approver,
        note ?? "",
        reason ?? "",
        decidedAt,
        String(nowMs),
        signature,
        pending.actionHash,
        pending.runId,
        pending.stepId,
        String(Date.parse(pending.expiresAt)),
      ],
    );
    if (outcome === "missing") throw new ReinError("not_found", `approval ${approvalId} does not exist`);
    if (outcome === "changed")
      throw new ReinError("approval_invalid", `approval ${approvalId} changed in Redis while it was being decided; read it again`);
    if (outcome !== "ok") throw notPending(approvalId, String(outcome));
    const decided = await this.get(approvalId);
    if (!decided)
      throw new ReinError("not_found", `approval ${approvalId} was decided but is gone (expired or removed) before it could be read back`);
    return decided;
  }

  /**
   * Turns the approved approval for exactly this action, run and step into
   * consumed. Returns it when this caller won; null when there was none or
   * another caller consumed it first. With `call` (the call's idempotency
   * key), that same call, re-issued after the worker that consumed it was
   * lost, gets it back: the approval covered that call, not a new one.
   */
  async consume(actionHash: string, runId: string, stepId: string, call?: string): Promise<Approval | null> {
    const approvalId = await this.redis.hget(this.keys.approvalByAction(actionHash), `${runId}:${stepId}`);
    if (!approvalId) return null;
    const outcome = await CONSUME.run(
      this.redis,
      [this.keys.approval(approvalId)],
      [actionHash, runId, stepId, new Date(this.now()).toISOString(), call ?? ""],
    );
    return outcome === "ok" ? this.get(approvalId) : null;
  }
}

const notPending = (approvalId: string, status: string) =>
  new ReinError("approval_invalid", `approval ${approvalId} is ${status}; only a pending approval can be decided`, { details: { status } });
