import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ReinError } from "@rein/contracts";
import { assertRedis, DEFAULT_REDIS_URL, pingRedis } from "@rein/runtime";

export interface RedisHandle {
  url: string;
  /** True when Rein started this server and will stop it. */
  embedded: boolean;
  stop(): Promise<void>;
}

/**
 * The Redis a command should use: the one it was given (`--redis`,
 * REDIS_URL or the config's redisUrl), which must answer; else one answering
 * on 127.0.0.1:6379; else a private `redis-server` from PATH on a free port
 * in a temporary directory, stopped by `stop()`.
 */
export async function ensureRedis(configured: string | undefined): Promise<RedisHandle> {
  if (configured) {
    await assertRedis(configured);
    return { url: configured, embedded: false, stop: async () => {} };
  }
  if (await pingRedis(DEFAULT_REDIS_URL, 500)) return { url: DEFAULT_REDIS_URL, embedded: false, stop: async () => {} };
  return startEmbeddedRedis();
}

export async function startEmbeddedRedis(): Promise<RedisHandle> {
  if (spawnSync("redis-server", ["--version"], { stdio: "ignore" }).error) {
    throw new ReinError(
      "redis_unavailable",
      "no Redis is reachable (REDIS_URL is unset and nothing answers on 127.0.0.1:6379) and redis-server is not on PATH; " +
        "install one (Debian/Ubuntu: `apt-get install redis-server`, macOS: `brew install redis`) or set REDIS_URL",
    );
  }
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), "rein-redis-"));
  const child: ChildProcess = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
    // Its own process group, so a Ctrl-C meant for rein run (which then
    // cancels its run through this Redis) does not stop it first; killed
    // when this process exits, however it exits.
    { stdio: "ignore", detached: true },
  );
  const killOnExit = () => child.kill("SIGTERM");
  process.once("exit", killOnExit);
  const url = `redis://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (await pingRedis(url, 200)) {
      return {
        url,
        embedded: true,
        stop: async () => {
          process.off("exit", killOnExit);
          child.kill("SIGTERM");
          await exited;
          await rm(dir, { recursive: true, force: true });
        },
      };
    }
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  process.off("exit", killOnExit);
  child.kill("SIGKILL");
  await rm(dir, { recursive: true, force: true });
  throw new ReinError("redis_unavailable", `started redis-server on port ${port} but it never answered`);
}

/** A TCP port nothing listens on right now, on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}
