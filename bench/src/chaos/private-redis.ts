import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { connectRedis, pingRedis, type Redis } from "@rein/runtime";
import { freePort } from "@rein/orchestrator";
import { within } from "./within.ts";

/**
 * A redis-server of the suite's own: its port, its data directory, AOF on,
 * so it can be SIGKILLed and restarted from what it had acknowledged.
 * `appendfsync everysec` is enough here: a killed process loses nothing
 * written to the file, only a lost machine would.
 */
export class PrivateRedis {
  #child: ChildProcess | undefined;
  #admin: Redis | undefined;

  private constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort(), await mkdtemp(join(tmpdir(), "rein-chaos-redis-")));
    await redis.restart();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /**
   * A connection for the suite's own commands (CLIENT PAUSE, INFO), made on
   * first use. Unlike the roles' connections, a command of it fails after a
   * few tries and 10 s instead of waiting for Redis forever.
   */
  admin(): Redis {
    if (!this.#admin) {
      this.#admin = connectRedis(this.url, { maxRetriesPerRequest: 3, commandTimeout: 10_000 });
      this.#admin.on("error", () => {});
    }
    return this.#admin;
  }

  /** Starts (again) on the same port and directory; resolves once it answers PING. */
  async restart(timeoutMs = 20_000): Promise<void> {
    const child = spawn(
      "redis-server",
      [
        "--port",
        String(this.port),
        "--bind",
        "127.0.0.1",
        "--dir",
        this.dir,
        "--appendonly",
        "yes",
        "--appendfsync",
        "everysec",
        "--save",
        "",
        "--maxmemory-policy",
        "noeviction",
        "--protected-mode",
        "no",
      ],
      { stdio: "ignore" },
    );
    this.#child = child;
    const deadline = Date.now() + timeoutMs;
    while (!(await pingRedis(this.url, 500))) {
      if (child.exitCode !== null) throw new Error(`chaos: redis-server on port ${this.port} exited with ${child.exitCode} at start`);
      if (Date.now() > deadline) throw new Error(`chaos: redis-server on port ${this.port} did not answer within ${timeoutMs} ms`);
      await delay(50);
    }
  }

  /** SIGKILL: no shutdown save, only what the AOF holds survives. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, "exit");
    child.kill("SIGKILL");
    await within(`redis-server on port ${this.port} exiting after SIGKILL`, 10_000, exited);
  }

  /** Every client (ALL) waits `ms`: locks are not renewed and nothing completes meanwhile. */
  async pause(ms: number): Promise<void> {
    await within("CLIENT PAUSE", 15_000, this.admin().call("CLIENT", "PAUSE", String(ms), "ALL"));
  }

  async stop(): Promise<void> {
    this.#admin?.disconnect();
    await this.kill();
    await rm(this.dir, { recursive: true, force: true });
  }
}
