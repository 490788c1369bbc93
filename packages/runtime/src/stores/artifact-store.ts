import type { RedisClient } from "../redis/redis-client.ts";
import { ReinError, newId } from "@rein/contracts";
import { deleteKeys } from "../redis/delete-keys.ts";
import type { RedisKeys } from "../redis/keys.ts";
import type { ArtifactWriter } from "@rein/tools";

export interface ArtifactStoreOptions {
  /** @defaultValue 64 MiB */
  maxBytes?: number;
  /** Seconds to keep an artifact; absent means keep. */
  ttlSeconds?: number;
}

export interface Artifact {
  artifactId: string;
  runId: string;
  content: string;
  bytes: number;
  tool?: string;
  mediaType: string;
  createdAt: string;
}

/** Large tool outputs and prompt copies, by id, size-capped, optionally with a TTL. */
export class ArtifactStore implements ArtifactWriter {
  private readonly maxBytes: number;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly options: ArtifactStoreOptions = {},
  ) {
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  }

  async put(runId: string, content: string, meta: { tool?: string; mediaType?: string } = {}): Promise<string> {
    const bytes = Buffer.byteLength(content);
    if (bytes > this.maxBytes) {
      throw new ReinError("tool_failed", `artifact of ${bytes} bytes exceeds the ${this.maxBytes}-byte cap`);
    }
    const artifactId = newId("art");
    const key = this.keys.artifact(artifactId);
    const fields = {
      runId,
      content,
      bytes: String(bytes),
      tool: meta.tool ?? "",
      mediaType: meta.mediaType ?? "text/plain",
      createdAt: new Date().toISOString(),
    };
    const index = this.keys.runArtifacts(runId);
    // Two transactions, not one: the artifact and the run's index are in different cluster slots.
    const stored = this.redis.multi().hset(key, fields);
    const indexed = this.redis.multi().sadd(index, artifactId);
    if (this.options.ttlSeconds) {
      stored.expire(key, this.options.ttlSeconds);
      indexed.expire(index, this.options.ttlSeconds);
    }
    await Promise.all([indexed.exec(), stored.exec()]);
    return artifactId;
  }

  /** Deletes every artifact of a run, referenced from its trace or not. */
  async removeRun(runId: string): Promise<number> {
    const index = this.keys.runArtifacts(runId);
    const ids = await this.redis.smembers(index);
    await deleteKeys(this.redis, [index, ...ids.map((id) => this.keys.artifact(id))]);
    return ids.length;
  }

  async get(artifactId: string): Promise<Artifact | null> {
    const fields = await this.redis.hgetall(this.keys.artifact(artifactId));
    if (!fields.runId) return null;
    return {
      artifactId,
      runId: fields.runId,
      content: fields.content ?? "",
      bytes: Number(fields.bytes),
      tool: fields.tool || undefined,
      mediaType: fields.mediaType ?? "text/plain",
      createdAt: fields.createdAt ?? "",
    };
  }
}
