import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRedis } from "@rein/runtime";
import { cliEnv, rein } from "./support/cli.ts";
import { type PrivateRedis, startPrivateRedis } from "./support/private-redis.ts";

// A password with every character that must be percent-encoded in a URL.
const ADMIN_PASSWORD = "s3cret@/:#?pass";
const REIN_PASSWORD = "rein-only/pass@1";
const PREFIX = "rein-acl";

/** The ACL docs/security.md recommends: Rein's keys and live channels only, no dangerous command but INFO (BullMQ reads the server version). */
const REIN_ACL = ["on", `>${REIN_PASSWORD}`, `~${PREFIX}:*`, `&${PREFIX}:live:*`, `&${PREFIX}:run-ended`, "+@all", "-@dangerous", "+info"];

// Each test starts `rein run` through tsx against a redis-server of its own.
describe("Rein against a password-protected Redis", { timeout: 120_000 }, () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startPrivateRedis(["--requirepass", ADMIN_PASSWORD], ADMIN_PASSWORD);
    const admin = connectRedis(redis.url({ password: ADMIN_PASSWORD }));
    await admin.call("ACL", "SETUSER", "rein", ...REIN_ACL);
    admin.disconnect();
  });
  afterAll(() => redis.stop());

  it("runs a whole goal, approval included, with the password in redisUrl, and never prints it", async () => {
    const env = cliEnv({ REDIS_URL: redis.url({ password: ADMIN_PASSWORD }) });
    const run = await rein(["run", "--example", "sre-triage", "--approve"], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/: done \(/);
    expect(run.stdout + run.stderr).not.toContain(ADMIN_PASSWORD);
    expect(run.stdout + run.stderr).not.toContain(encodeURIComponent(ADMIN_PASSWORD));
  });

  it("runs a whole goal as an ACL user limited to Rein's keys and channels, and Redis refused it nothing", async () => {
    const admin = connectRedis(redis.url({ password: ADMIN_PASSWORD }));
    try {
      await admin.call("ACL", "LOG", "RESET");
      const env = cliEnv({ REDIS_URL: redis.url({ username: "rein", password: REIN_PASSWORD }), REIN_PREFIX: PREFIX });
      const run = await rein(["run", "--example", "sre-triage", "--approve"], env);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/: done \(/);
      expect(await admin.call("ACL", "LOG")).toEqual([]);
      // The same user cannot touch what is not Rein's.
      const limited = connectRedis(redis.url({ username: "rein", password: REIN_PASSWORD }));
      await expect(limited.set("other-app:key", "x")).rejects.toThrow(/NOPERM/);
      await expect(limited.call("FLUSHALL")).rejects.toThrow(/NOPERM/);
      limited.disconnect();
    } finally {
      admin.disconnect();
    }
  });

  it("says no Redis answers, without the password, when the password is wrong", async () => {
    const wrong = "wrong-pass-value";
    const result = await rein(["status", "run_x"], cliEnv({ REDIS_URL: redis.url({ password: wrong }) }));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/no Redis answers at redis:\/\/:\*\*\*@127\.0\.0\.1/);
    expect(result.stderr).not.toContain(wrong);
  });
});
