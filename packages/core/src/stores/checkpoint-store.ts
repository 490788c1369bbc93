import type { Redis } from "ioredis";
import { StepCheckpoint } from "../contracts/index.ts";
import { ReinError } from "../errors.ts";
import type { RedisKeys } from "../redis/keys.ts";

export interface CheckpointStoreOptions {
  /** Seconds a checkpoint outlives its last write. @defaultValue 7 days */
  ttlSeconds?: number;
}

/** Worker loop checkpoints in Redis, one per step, validated when read back. */
export class CheckpointStore {
  private readonly ttlSeconds: number;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    options: CheckpointStoreOptions = {},
  ) {
    this.ttlSeconds = options.ttlSeconds ?? 7 * 24 * 3600;
  }

  async save(checkpoint: StepCheckpoint): Promise<void> {
    const validated = StepCheckpoint.parse(checkpoint);
    await this.redis.set(this.keys.checkpoint(validated.runId, validated.stepId), JSON.stringify(validated), "EX", this.ttlSeconds);
  }

  /** The checkpoint of this attempt, or null (none, or one of an earlier attempt). */
  async load(runId: string, stepId: string, attempt: number): Promise<StepCheckpoint | null> {
    const raw = await this.redis.get(this.keys.checkpoint(runId, stepId));
    if (raw === null) return null;
    const parsed = StepCheckpoint.safeParse(JSON.parse(raw));
    if (!parsed.success) {
      throw new ReinError("contract_invalid", `the checkpoint of ${runId}/${stepId} is malformed: ${parsed.error.issues[0]?.message}`);
    }
    return parsed.data.attempt === attempt ? parsed.data : null;
  }

  async remove(runId: string, stepId: string): Promise<void> {
    await this.redis.del(this.keys.checkpoint(runId, stepId));
  }
}
