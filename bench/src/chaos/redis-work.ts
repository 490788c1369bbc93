import type { Redis } from "@rein/runtime";
import { QUEUE_NAMES } from "@rein/runtime";

/** What Redis has done so far, read from INFO and BullMQ's job counters. */
export interface RedisWork {
  /** Redis's own CPU seconds (user + sys). */
  cpuSeconds: number;
  commands: number;
  /**
   * Reads Redis made from client sockets (INFO stats `total_reads_processed`):
   * its round trips with clients, each a batch of commands. A command sent
   * alone costs Redis a read, a reply's write and often a wake of its event
   * loop; commands sent together share them.
   */
  reads: number;
  /** Calls by command name (INFO commandstats), scripts' inner calls included. */
  byCommand: Map<string, number>;
  /** Microseconds Redis spent by command name (INFO commandstats); a script's inner calls count in the script's too. */
  usecByCommand: Map<string, number>;
  /**
   * Jobs added to each queue: BullMQ's add scripts INCR the queue's `id`
   * key on every add, with a custom job id too, so this counts adds
   * (a duplicate add the queue drops counts as well).
   */
  jobs: Map<string, number>;
}

/** What Redis has done so far; jobs summed over the queue shards whose BullMQ prefixes are `queuePrefixes`. */
export async function redisWork(admin: Redis, queuePrefixes: readonly string[]): Promise<RedisWork> {
  const [info, stats, ...ids] = await Promise.all([
    admin.info("cpu").then(async (cpu) => `${cpu}\n${await admin.info("stats")}`),
    admin.info("commandstats"),
    ...Object.values(QUEUE_NAMES).map(async (queue) => {
      const counts = await Promise.all(queuePrefixes.map((prefix) => admin.get(`${prefix}:${queue}:id`)));
      return counts.reduce((sum, count) => sum + Number(count ?? 0), 0);
    }),
  ]);
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  const byCommand = new Map<string, number>();
  const usecByCommand = new Map<string, number>();
  for (const match of stats.matchAll(/cmdstat_([\w|]+):calls=(\d+),usec=(\d+)/g)) {
    byCommand.set(match[1] as string, Number(match[2]));
    usecByCommand.set(match[1] as string, Number(match[3]));
  }
  const jobs = new Map(Object.values(QUEUE_NAMES).map((queue, index) => [queue, Number(ids[index] ?? 0)]));
  return {
    cpuSeconds: field("used_cpu_user") + field("used_cpu_sys"),
    commands: field("total_commands_processed"),
    reads: field("total_reads_processed"),
    byCommand,
    usecByCommand,
    jobs,
  };
}

/** `after - before` per run, for each key of `after`. */
export function perRun(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>, runs: number): Map<string, number> {
  return new Map([...after].map(([key, value]) => [key, (value - (before.get(key) ?? 0)) / Math.max(1, runs)]));
}

export async function usedMemory(admin: Redis): Promise<number> {
  const info = await admin.info("memory");
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
}
