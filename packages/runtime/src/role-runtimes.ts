import type { RedisClient } from "./redis/redis-client.ts";
import type { ReinRuntime } from "./runtime.ts";

/** Redis as intake reads a run's stored fields: no command that writes. */
export type RunStateReads = Pick<RedisClient, "hget" | "hmget" | "exists">;

/** What every role's consumer is built on and reports through: config, BullMQ's connection, its queues, its trace and log. */
type ConsumerPieces = "config" | "connection" | "keys" | "redisErrors" | "telemetry" | "logger" | "trace" | "queues";

/**
 * What the planner's consumer may use of the runtime. No `runs` and a Redis
 * it can only read through: it never writes run state itself. Its results go
 * out through the RunEvents it is given: control events, or, in a process
 * that holds the packet-signing key, the transition applied in place.
 */
export type PlannerRuntime = Pick<ReinRuntime, ConsumerPieces | "live" | "redactor"> & { redis: RunStateReads };

/** What the evaluator's consumer may use: the planner's pieces, plus the artifacts and secrets its command checks run with. */
export type EvaluatorRuntime = PlannerRuntime & Pick<ReinRuntime, "artifacts" | "secrets">;

/**
 * What the step worker's consumer may use: no `runs`, and no Redis client
 * that writes. It writes only the step's own keys, through `checkpoints`
 * (fenced by the job's owner token), and hears of its run's end through
 * `runEnds`; like the planner, it reads a run's state only for intake.
 */
export type StepWorkerRuntime = Pick<ReinRuntime, ConsumerPieces | "live" | "redactor" | "checkpoints" | "runEnds"> & {
  redis: RunStateReads;
};

/**
 * What applying a run's events takes: run state with compare-and-set
 * (`runs`) and the hand-off leases. The controller holds it, and so do the
 * trusted plan and evaluate processes that apply their own results.
 */
export type ControllerRuntime = Pick<ReinRuntime, ConsumerPieces | "runs" | "redis" | "handoffs">;
