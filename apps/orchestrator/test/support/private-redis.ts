import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pingRedis } from "@rein/runtime";
import { freePort } from "../../src/redis/embedded-redis.ts";

export interface PrivateRedis {
  port: number;
  /** `redis://[user:password@]127.0.0.1:port`, the credentials percent-encoded. */
  url(credentials?: { username?: string; password: string }): string;
  stop(): Promise<void>;
}

/** A redis-server of this test's own on a free port, with `args` (e.g. --requirepass); stopped and removed by `stop`. */
export async function startPrivateRedis(args: string[], password: string): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), "rein-private-redis-"));
  const child: ChildProcess = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, ...args],
    {
      stdio: "ignore",
    },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = (credentials?: { username?: string; password: string }) =>
    credentials
      ? `redis://${encodeURIComponent(credentials.username ?? "")}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}`
      : `redis://127.0.0.1:${port}`;
  const stop = async () => {
    child.kill("SIGTERM");
    await exited;
    await rm(dir, { recursive: true, force: true });
  };
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (await pingRedis(url({ password }), 200)) return { port, url, stop };
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stop();
  throw new Error(`redis-server on port ${port} never answered`);
}
