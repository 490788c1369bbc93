import { createHash } from "node:crypto";
import type { RedisClient } from "./redis-client.ts";

/**
 * A Lua script sent by its SHA1 (EVALSHA), its body only when the server
 * does not have it yet (first use, a restart, SCRIPT FLUSH, a new cluster
 * node): EVAL of a whole body on every call made Redis hash and look up
 * kilobytes of text per call (14 such calls in each one-step run).
 */
export class LuaScript {
  readonly sha: string;

  constructor(readonly body: string) {
    this.sha = createHash("sha1").update(body).digest("hex");
  }

  async run(redis: RedisClient, keys: readonly string[], args: readonly (string | Buffer)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
      // EVAL also caches the script on that server, so the next call is an EVALSHA again.
      return redis.eval(this.body, keys.length, ...keys, ...args);
    }
  }
}
