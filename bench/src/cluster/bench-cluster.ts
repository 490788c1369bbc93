import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { freePort } from "@rein/orchestrator";
import { connectRedis, pingRedis, type Redis } from "@rein/runtime";

const SLOTS = 16_384;

/** What one master has done so far (INFO): its commands and its own CPU seconds. */
export interface MasterWork {
  port: number;
  commands: number;
  cpuSeconds: number;
}

/**
 * A Redis Cluster of masters only, on loopback, for measuring where load
 * goes: each master owns an equal range of slots, as `redis-cli --cluster
 * create` gives them (which refuses fewer than three masters; a one-master
 * cluster is the baseline here), no replicas, nothing on disk.
 */
export class BenchCluster {
  private constructor(
    private readonly nodes: { port: number; child: ChildProcess; admin: Redis }[],
    private readonly dir: string,
  ) {}

  static async start(masters: number): Promise<BenchCluster> {
    const dir = await mkdtemp(join(tmpdir(), "rein-bench-cluster-"));
    const nodes: { port: number; child: ChildProcess; admin: Redis }[] = [];
    const cluster = new BenchCluster(nodes, dir);
    try {
      for (let index = 0; index < masters; index += 1) {
        const port = await freePort();
        const child = spawn(
          "redis-server",
          [
            "--port",
            String(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            dir,
            "--cluster-enabled",
            "yes",
            "--cluster-announce-ip",
            "127.0.0.1",
          ].concat(["--cluster-config-file", `nodes-${port}.conf`, "--save", "", "--appendonly", "no", "--protected-mode", "no"]),
          { stdio: "ignore" },
        );
        await waitFor(`port ${port} to answer`, () => pingRedis(`redis://127.0.0.1:${port}`, 500));
        const admin = connectRedis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 3 });
        admin.on("error", () => {});
        nodes.push({ port, child, admin });
      }
      for (const [index, node] of nodes.entries()) {
        const from = Math.floor((index * SLOTS) / masters);
        const to = Math.floor(((index + 1) * SLOTS) / masters) - 1;
        await node.admin.call("CLUSTER", "ADDSLOTSRANGE", String(from), String(to));
        if (index > 0) await node.admin.call("CLUSTER", "MEET", "127.0.0.1", String(nodes[0]?.port));
      }
      await waitFor("every master to see the whole cluster ok", async () => {
        const infos = await Promise.all(nodes.map((node) => node.admin.call("CLUSTER", "INFO") as Promise<string>));
        return infos.every((info) => info.includes("cluster_state:ok") && info.includes(`cluster_known_nodes:${masters}`));
      });
      return cluster;
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  }

  get seeds(): string[] {
    return this.nodes.map((node) => `redis://127.0.0.1:${node.port}`);
  }

  /** Each master's commands and CPU so far. */
  async work(): Promise<MasterWork[]> {
    return Promise.all(
      this.nodes.map(async ({ port, admin }) => {
        const info = `${await admin.info("stats")}\n${await admin.info("cpu")}`;
        const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
        return { port, commands: field("total_commands_processed"), cpuSeconds: field("used_cpu_user") + field("used_cpu_sys") };
      }),
    );
  }

  async stop(): Promise<void> {
    for (const node of this.nodes) node.admin.disconnect();
    await Promise.all(
      this.nodes.map(async ({ child }) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, "exit");
        child.kill("SIGKILL");
        await exited;
      }),
    );
    await rm(this.dir, { recursive: true, force: true });
  }
}

async function waitFor(what: string, condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`bench cluster: waited ${timeoutMs} ms for ${what}`);
    await delay(100);
  }
}
