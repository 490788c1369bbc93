import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { promisify } from "node:util";
import { connectRedis, pingRedis, type Redis } from "@rein/runtime";
import { freePort } from "../../src/redis/embedded-redis.ts";

const run = promisify(execFile);
/** How long a master may be unreachable before its replica takes over. */
const NODE_TIMEOUT_MS = 2_000;
/**
 * How stale a replica's data may be for it to take over: its link to its master down for at most
 * 10 s (the replication ping period) + factor × node timeout, here 60 s, as long as `failedOver`
 * waits. Never 0 (no limit): a node restarted without its data has not synced since it started,
 * which Redis counts as disconnected forever, and only a non-zero factor keeps it from being
 * elected in its new master's place and wiping the slots' data (docs/scaling.md).
 */
const REPLICA_VALIDITY_FACTOR = 25;

export interface ClusterNode {
  port: number;
  url: string;
  /** The running server; replaced when a crashed node is restarted. */
  child: ChildProcess;
}

/**
 * A real Redis Cluster on loopback: three masters and three replicas, each a
 * `redis-server --cluster-enabled yes` on a free port with its own directory,
 * joined by `redis-cli --cluster create --cluster-replicas 1`. A short node
 * timeout lets a replica take over within seconds. Resolves once every
 * replica receives its master's writes, so that a crash from then on loses
 * only what replication had not yet carried.
 */
export class LocalCluster {
  private constructor(
    readonly nodes: ClusterNode[],
    private readonly dir: string,
  ) {}

  static async start(): Promise<LocalCluster> {
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
        const child = startNode(port, nodeDir);
        nodes.push({ port, url: `redis://127.0.0.1:${port}`, child });
      }
      for (const node of nodes) await waitFor(`node ${node.port} to answer`, () => pingRedis(node.url, 500), 20_000);
      await run(
        "redis-cli",
        ["--cluster", "create", ...nodes.map((node) => `127.0.0.1:${node.port}`), "--cluster-replicas", "1", "--cluster-yes"],
        { timeout: 60_000 },
      );
      await waitFor(
        "every node to see the cluster ok",
        async () =>
          (await Promise.all(nodes.map((node) => cluster.#info(node, "CLUSTER", "INFO", "cluster_state")))).every(
            (state) => state === "ok",
          ),
        60_000,
      );
      // A replica that has not synced yet cannot take over; a failover test needs all three ready.
      await waitFor(
        "every replica to sync with its master",
        async () =>
          (await Promise.all(nodes.map((node) => cluster.#info(node, "INFO", "replication", "master_link_status")))).filter(
            (status) => status === "up",
          ).length === 3,
        60_000,
      );
      const masters = (
        await Promise.all(
          nodes.map(async (node) => ((await cluster.#info(node, "INFO", "replication", "role")) === "master" ? node : undefined)),
        )
      ).filter((node) => node !== undefined);
      await Promise.all(masters.map((master) => cluster.#replicating(master)));
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
   * A crash: `master` is SIGKILLed. Its replica takes over once the other
   * masters have seen it unreachable for the node timeout; whatever the master
   * acknowledged and had not yet sent its replica is gone.
   */
  async crash(master: ClusterNode): Promise<void> {
    const exited = once(master.child, "exit");
    master.child.kill("SIGKILL");
    await exited;
  }

  /**
   * Starts a crashed node again on its port and directory, as a supervisor
   * would. Its `nodes.conf` names the cluster, so it rejoins, learns that its
   * replica took over, and becomes that node's replica (with no data of its own
   * to offer: persistence is off). Resolves once it receives that node's writes.
   *
   * With `stalling`, that node (the crashed node's successor) is frozen from
   * just before the restart until the other masters have marked it failed and
   * an election has had time to run: what a loaded machine does to a busy
   * master, at the moment the restarted node is a replica with no data yet.
   */
  async restart(node: ClusterNode, options: { stalling?: ClusterNode } = {}): Promise<void> {
    const nodeDir = join(this.dir, String(node.port));
    const stalled = options.stalling;
    stalled?.child.kill("SIGSTOP");
    try {
      node.child = startNode(node.port, nodeDir);
      // Generous: on a loaded machine a PING of a node that is syncing from its new master can take seconds.
      await waitFor(`node ${node.port} to answer again`, () => pingRedis(node.url, 2_000), 60_000).catch(async (error: unknown) => {
        const log = await readFile(join(nodeDir, "redis.log"), "utf8").catch(() => "");
        throw new Error(
          `${(error as Error).message} (exit ${node.child.exitCode ?? node.child.signalCode ?? "none"}); its log ends:\n${log.split("\n").slice(-15).join("\n")}`,
        );
      });
      if (stalled) {
        await waitFor(
          `node ${node.port} to rejoin as a replica`,
          async () => (await this.#info(node, "INFO", "replication", "role")) === "slave",
          60_000,
        );
        // Generous: on a loaded machine (stress beside the whole suite) the masters' failure reports took over a minute to meet.
        await waitFor(`the cluster to mark ${stalled.port} failed`, () => this.#markedFailed(stalled, node), 150_000);
        // A replica of a failed master starts its election within about a second; twice the node timeout covers a slow one.
        await delay(2 * NODE_TIMEOUT_MS);
        if ((await this.#info(node, "INFO", "replication", "role")) === "master") {
          throw new Error(
            `local cluster: node ${node.port} was elected master of its old slots before it had synced; ${stalled.port}'s data for them is lost`,
          );
        }
      }
    } finally {
      stalled?.child.kill("SIGCONT");
    }
    await waitFor(
      `node ${node.port} to sync as a replica`,
      async () => (await this.#info(node, "INFO", "replication", "master_link_status")) === "up",
      60_000,
    );
    const masterPort = Number(await this.#info(node, "INFO", "replication", "master_port"));
    const master = this.nodes.find((candidate) => candidate.port === masterPort);
    if (!master) throw new Error(`local cluster: node ${node.port} replicates port ${masterPort}, which is not a node of this cluster`);
    await this.#replicating(master);
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

  /**
   * Resolves once `master`'s replica has acknowledged a write made now. A
   * replica reads its link `up`, and its master counts it toward
   * `min-replicas-to-write`, as soon as it has loaded its full sync; but with
   * diskless sync (Redis 7's default) the master streams writes to it only
   * from its next `REPLCONF ACK`, up to a second later. A master SIGKILLed in
   * between takes with it everything it acknowledged since the sync, and its
   * replica takes over without it: right after the cluster formed, a third
   * of the replicas were in that state, and a crash then left the new master
   * of `{queues}` empty (every job and every run stored in its slots gone).
   */
  async #replicating(master: ClusterNode): Promise<void> {
    const redis = connectRedis(master.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    redis.on("error", () => {});
    try {
      await redis.connect();
      const probe = await probeKeyOf(redis);
      // WAIT asks the replica for its offset through the stream it may not be receiving yet; its own next ACK starts that stream.
      // Until the master has seen the sync end, it refuses the write itself (NOREPLICAS), however `up` the replica's link reads.
      await waitFor(
        `port ${master.port}'s replica to receive its writes`,
        async () =>
          (await redis.set(probe, "1").then(() => true, refusedFor("NOREPLICAS"))) && Number(await redis.call("WAIT", "1", "1000")) >= 1,
        60_000,
      );
      await redis.del(probe);
    } finally {
      redis.disconnect();
    }
  }

  /** Whether a node other than `stalled` and `rejoining` flags `stalled` as failed (`fail`, not the unconfirmed `fail?`). */
  async #markedFailed(stalled: ClusterNode, rejoining: ClusterNode): Promise<boolean> {
    const asker = this.nodes.find(
      (node) => node !== stalled && node !== rejoining && node.child.exitCode === null && node.child.signalCode === null,
    );
    if (!asker) throw new Error("no other live cluster node");
    const redis = connectRedis(asker.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    redis.on("error", () => {});
    try {
      await redis.connect();
      const lines = String(await redis.call("CLUSTER", "NODES")).split("\n");
      const flags = lines.find((line) => line.split(" ")[1]?.startsWith(`127.0.0.1:${stalled.port}@`))?.split(" ")[2] ?? "";
      return flags.split(",").includes("fail");
    } catch {
      return false;
    } finally {
      redis.disconnect();
    }
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

function startNode(port: number, nodeDir: string): ChildProcess {
  return spawn(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--dir",
      nodeDir,
      "--logfile",
      join(nodeDir, "redis.log"),
      "--cluster-enabled",
      "yes",
      "--cluster-config-file",
      "nodes.conf",
      "--cluster-node-timeout",
      String(NODE_TIMEOUT_MS),
      "--save",
      "",
      "--appendonly",
      "no",
      "--protected-mode",
      "no",
      // A replica syncs without the default 5 s wait.
      "--cluster-replica-validity-factor",
      String(REPLICA_VALIDITY_FACTOR),
      "--repl-diskless-sync-delay",
      "0",
      // What docs/scaling.md asks of a production cluster: a master that has lost its replica
      // refuses writes instead of acknowledging what a failover would discard.
      "--min-replicas-to-write",
      "1",
      "--min-replicas-max-lag",
      "2",
    ],
    { stdio: "ignore" },
  );
}

/** A key in `master`'s slots: a read of a key in another master's slots is answered MOVED. */
async function probeKeyOf(master: Redis): Promise<string> {
  for (let index = 0; index < 1_000; index += 1) {
    const key = `local-cluster-probe-${index}`;
    if (await master.get(key).then(() => true, refusedFor("MOVED"))) return key;
  }
  throw new Error("local cluster: no probe key lands in this master's slots");
}

/** A rejection handler: false for a reply error starting with `code`, any other error rethrown. */
function refusedFor(code: string): (error: Error) => false {
  return (error) => {
    if (error.message.startsWith(code)) return false;
    throw error;
  };
}

async function waitFor(what: string, condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`local cluster: waited ${timeoutMs} ms for ${what}`);
    await delay(100);
  }
}
