import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { promisify } from "node:util";
import { connectRedis, pingRedis } from "@rein/core";
import { freePort } from "../../src/redis/embedded-redis.ts";

const run = promisify(execFile);

export interface ClusterNode {
  port: number;
  url: string;
  child: ChildProcess;
}

/**
 * A real Redis Cluster on loopback: three masters and three replicas, each a
 * `redis-server --cluster-enabled yes` on a free port with its own directory,
 * joined by `redis-cli --cluster create --cluster-replicas 1`. A short node
 * timeout and no replica validity limit let a replica take over within seconds.
 */
export class LocalCluster {
  private constructor(
    readonly nodes: ClusterNode[],
    private readonly dir: string,
  ) {}

  static async start(nodeTimeoutMs = 2_000): Promise<LocalCluster> {
    const dir = await mkdtemp(join(tmpdir(), "rein-cluster-"));
    const nodes: ClusterNode[] = [];
    const cluster = new LocalCluster(nodes, dir);
    // Should the test's cleanup never reach stop() (a hook that times out), the servers still die with it.
    process.once("exit", () => {
      for (const node of nodes) node.child.kill("SIGKILL");
    });
    try {
      for (let index = 0; index < 6; index += 1) {
        const port = await freePort();
        const nodeDir = join(dir, String(port));
        await mkdir(nodeDir);
        const child = spawn(
          "redis-server",
          ["--port", String(port), "--bind", "127.0.0.1", "--dir", nodeDir, "--logfile", join(nodeDir, "redis.log"), "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", String(nodeTimeoutMs), "--save", "", "--appendonly", "no", "--protected-mode", "no",
            // A replica takes over however long its link was down, and syncs without the default 5 s wait.
            "--cluster-replica-validity-factor", "0", "--repl-diskless-sync-delay", "0",
            // What docs/scaling.md asks of a production cluster: a master that has lost its replica
            // refuses writes instead of acknowledging what a failover would discard.
            "--min-replicas-to-write", "1", "--min-replicas-max-lag", "2"],
          { stdio: "ignore" },
        );
        nodes.push({ port, url: `redis://127.0.0.1:${port}`, child });
      }
      for (const node of nodes) await waitFor(`node ${node.port} to answer`, () => pingRedis(node.url, 500), 20_000);
      await run("redis-cli", ["--cluster", "create", ...nodes.map((node) => `127.0.0.1:${node.port}`), "--cluster-replicas", "1", "--cluster-yes"], { timeout: 60_000 });
      await waitFor("every node to see the cluster ok", async () => (await Promise.all(nodes.map((node) => cluster.#info(node, "CLUSTER", "INFO", "cluster_state")))).every((state) => state === "ok"), 60_000);
      // A replica that has not synced yet cannot take over; a failover test needs all three ready.
      await waitFor(
        "every replica to sync with its master",
        async () => (await Promise.all(nodes.map((node) => cluster.#info(node, "INFO", "replication", "master_link_status")))).filter((status) => status === "up").length === 3,
        60_000,
      );
      return cluster;
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  }

  get seeds(): string[] {
    return this.nodes.map((node) => node.url);
  }

  /** The live master serving `key`'s slot, asked of a live node. */
  async masterOf(key: string): Promise<ClusterNode> {
    const asker = this.nodes.find((node) => node.child.exitCode === null && node.child.signalCode === null);
    if (!asker) throw new Error("no live cluster node");
    const redis = connectRedis(asker.url);
    try {
      const slot = Number(await redis.call("CLUSTER", "KEYSLOT", key));
      const ranges = (await redis.call("CLUSTER", "SLOTS")) as [number, number, [string, number, ...unknown[]], ...unknown[]][];
      const range = ranges.find(([from, to]) => slot >= from && slot <= to);
      const port = range?.[2][1];
      const node = this.nodes.find((candidate) => candidate.port === port);
      if (!node) throw new Error(`no node serves slot ${slot}`);
      return node;
    } finally {
      redis.disconnect();
    }
  }

  /**
   * A coordinated failover (`CLUSTER FAILOVER` on `master`'s replica): the
   * master stops taking writes, its replica catches up, then takes over.
   * Unlike a crash, no acknowledged write is lost.
   */
  async failover(master: ClusterNode): Promise<void> {
    const asker = connectRedis(master.url);
    try {
      const id = String(await asker.call("CLUSTER", "MYID"));
      // A new replica is known to its master only once gossip has carried it there; on a busy machine that takes a while.
      let replica: ClusterNode | undefined;
      await waitFor(
        `a replica of ${master.port} known to it`,
        async () => {
          const replicas = (await asker.call("CLUSTER", "REPLICAS", id)) as string[];
          const port = Number(/:(\d+)@/.exec(replicas[0]?.split(" ")[1] ?? "")?.[1]);
          replica = this.nodes.find((node) => node.port === port);
          return replica !== undefined;
        },
        60_000,
      );
      if (!replica) throw new Error(`no replica of ${master.port} found`);
      const redis = connectRedis(replica.url);
      try {
        await redis.call("CLUSTER", "FAILOVER");
      } finally {
        redis.disconnect();
      }
    } finally {
      asker.disconnect();
    }
  }

  /** Resolves once `previous`'s slot for `key` is served by another node. */
  async failedOver(previous: ClusterNode, key: string, timeoutMs = 60_000): Promise<ClusterNode> {
    let master: ClusterNode | undefined;
    await waitFor(
      "a replica to take over",
      async () => {
        master = await this.masterOf(key).catch(() => undefined);
        return master !== undefined && master.port !== previous.port;
      },
      timeoutMs,
    );
    return master as ClusterNode;
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.nodes.map(async (node) => {
        if (node.child.exitCode !== null || node.child.signalCode !== null) return;
        const exited = once(node.child, "exit");
        node.child.kill("SIGKILL");
        await exited;
      }),
    );
    await rm(this.dir, { recursive: true, force: true });
  }

  /** One `field:value` of an INFO-like reply (`CLUSTER INFO`, `INFO replication`). */
  async #info(node: ClusterNode, command: string, argument: string, field: string): Promise<string | undefined> {
    const redis = connectRedis(node.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    redis.on("error", () => {});
    try {
      await redis.connect();
      const info = String(await redis.call(command, argument));
      return new RegExp(`${field}:(\\S+)`).exec(info)?.[1];
    } catch {
      return undefined;
    } finally {
      redis.disconnect();
    }
  }
}

async function waitFor(what: string, condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`local cluster: waited ${timeoutMs} ms for ${what}`);
    await delay(100);
  }
}
