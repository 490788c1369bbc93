import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliEnv, rein } from "./support/cli.ts";

/** Nothing listens on port 1; each URL below differs only in the database number, so the message shows which one was used. */
const dead = (db: number) => `redis://127.0.0.1:1/${db}`;

function configWithRedis(url: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "rein-redis-config-")), "rein.config.json");
  writeFileSync(file, JSON.stringify({ redisUrl: url }));
  return file;
}

const oneMessage = (stderr: string) =>
  stderr
    .trim()
    .split("\n")
    .filter((line) => line.length > 0);

// CLI starts on a loaded machine; not timing assertions.
describe("one Redis resolution for every command", { timeout: 120_000 }, () => {
  it("uses the config's redisUrl, and an unreachable one fails with one line naming it", async () => {
    const env = cliEnv();
    delete env.REDIS_URL;
    const result = await rein(["status", "run_x", "--config", configWithRedis(dead(1))], env);
    expect(result.code).toBe(1);
    expect(oneMessage(result.stderr)).toEqual([
      expect.stringMatching(/^rein status: no Redis answers at redis:\/\/127\.0\.0\.1:1\/1 \(.+\); expected a reachable Redis/),
    ]);
    expect(result.stderr).not.toMatch(/Unhandled error event/);
  });

  it("lets REDIS_URL win over the config and --redis win over both, in rein run as in the rest", async () => {
    const file = configWithRedis(dead(1));
    const fromEnv = await rein(["approvals", "--config", file], cliEnv({ REDIS_URL: dead(2) }));
    expect(fromEnv.stderr).toMatch(/no Redis answers at redis:\/\/127\.0\.0\.1:1\/2 /);
    const fromFlag = await rein(["run", "--example", "bugfix", "--config", file, "--redis", dead(3)], cliEnv({ REDIS_URL: dead(2) }));
    expect(fromFlag.code).toBe(1);
    expect(fromFlag.stderr).toMatch(/no Redis answers at redis:\/\/127\.0\.0\.1:1\/3 /);
    expect(fromFlag.stderr).not.toMatch(/started a private redis-server|Unhandled error event/);
  });

  it("never prints a password from the URL", async () => {
    const result = await rein(["status", "run_x", "--redis", "redis://rein:hunter2-secret@127.0.0.1:1/0"], cliEnv());
    expect(result.stderr).toMatch(/no Redis answers at redis:\/\/rein:\*\*\*@127\.0\.0\.1:1\/0/);
    expect(result.stderr).not.toContain("hunter2-secret");
  });
});
