import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * Where this process may make a cgroup per call, by controller: a cgroup v2
 * directory serves both when both controllers are delegated to it; on
 * cgroup v1 each controller has a hierarchy of its own.
 */
export interface CgroupRoots {
  /** Child cgroups here get `pids.max`. */
  pids?: string;
  /** Child cgroups here get `memory.max` (v2) or `memory.limit_in_bytes` (v1). */
  memory?: string;
}

export interface CallLimits {
  processes: number;
  memoryBytes: number;
}

const V1_MEMORY_LIMIT = "memory.limit_in_bytes";

/**
 * The cgroups of one sandboxed call (or one long-lived program): `pids.max`
 * is the only limit on process count that holds for root (the kernel
 * ignores RLIMIT_NPROC for uid 0, and a user namespace maps the sandbox's
 * uid back to it), and `memory.max` holds the call's processes together to
 * `memoryBytes`, where RLIMIT_DATA holds each one alone. On v2 an OOM kills
 * the whole call (`memory.oom.group`); on v1 the kernel kills the largest
 * process.
 */
export class CallCgroup {
  private constructor(
    private readonly dirs: readonly string[],
    private readonly memoryDir: string | undefined,
  ) {}

  /** Where this process may create per-call cgroups; a controller it may not use is absent. */
  static async findRoots(): Promise<CgroupRoots> {
    const candidates = candidateRoots();
    return {
      pids: await firstWritable(candidates.pids, (probe) => writeFile(join(probe, "pids.max"), "8")),
      memory: await firstWritable(candidates.memory, async (probe) => {
        const file = existsSync(join(probe, "memory.max")) ? "memory.max" : V1_MEMORY_LIMIT;
        await writeFile(join(probe, file), String(64 * 1024 * 1024));
      }),
    };
  }

  static async create(roots: CgroupRoots, limits: CallLimits): Promise<CallCgroup> {
    const name = `rein-${randomBytes(8).toString("hex")}`;
    const roles = new Map<string, Array<"pids" | "memory">>();
    if (roots.pids) roles.set(roots.pids, ["pids"]);
    if (roots.memory) roles.set(roots.memory, [...(roles.get(roots.memory) ?? []), "memory"]);
    const made: string[] = [];
    let memoryDir: string | undefined;
    try {
      for (const [root, controllers] of roles) {
        const dir = join(root, name);
        await mkdir(dir);
        made.push(dir);
        if (controllers.includes("pids")) await writeFile(join(dir, "pids.max"), String(limits.processes));
        if (controllers.includes("memory")) {
          await limitMemory(dir, limits.memoryBytes);
          memoryDir = dir;
        }
      }
    } catch (error) {
      await Promise.all(made.map((dir) => rmdir(dir).catch(() => {})));
      throw error;
    }
    return new CallCgroup(made, memoryDir);
  }

  /** The files a process writes its pid into to join every cgroup of the call. */
  get procsFiles(): string[] {
    return this.dirs.map((dir) => join(dir, "cgroup.procs"));
  }

  /** SIGKILLs every process in the cgroups, synchronously, so an abort handler can call it. */
  killAll(): void {
    for (const file of this.procsFiles) {
      let pids: string[];
      try {
        pids = readFileSync(file, "utf8").split("\n").filter(Boolean);
      } catch {
        continue;
      }
      for (const pid of pids) {
        try {
          process.kill(Number(pid), "SIGKILL");
        } catch {
          // Already gone.
        }
      }
    }
  }

  /** How many of the call's processes the kernel killed for going past the memory limit. */
  async memoryKills(): Promise<number> {
    if (!this.memoryDir) return 0;
    // v2 counts them in memory.events, v1 in memory.oom_control; both as "oom_kill N".
    for (const file of ["memory.events", "memory.oom_control"]) {
      const text = await readFile(join(this.memoryDir, file), "utf8").catch(() => undefined);
      const kills = text?.match(/^oom_kill (\d+)$/m)?.[1];
      if (kills !== undefined) return Number(kills);
    }
    return 0;
  }

  /** Kills what is left and removes the cgroups; a cgroup is removable only once empty. */
  async dispose(): Promise<void> {
    for (const dir of this.dirs) {
      for (let attempt = 0; attempt < 50; attempt += 1) {
        this.killAll();
        try {
          await rmdir(dir);
          break;
        } catch {
          await new Promise((resolveDelay) => setTimeout(resolveDelay, 20));
        }
      }
    }
  }
}

async function limitMemory(dir: string, bytes: number): Promise<void> {
  if (existsSync(join(dir, "memory.max"))) {
    await writeFile(join(dir, "memory.max"), String(bytes));
    // Swap would only let the call hold more than its limit, slower.
    if (existsSync(join(dir, "memory.swap.max"))) await writeFile(join(dir, "memory.swap.max"), "0");
    await writeFile(join(dir, "memory.oom.group"), "1").catch(() => {});
    return;
  }
  await writeFile(join(dir, V1_MEMORY_LIMIT), String(bytes));
  // memsw bounds memory and swap together; it exists only where swap accounting is on, and may not go below the memory limit.
  if (existsSync(join(dir, "memory.memsw.limit_in_bytes")))
    await writeFile(join(dir, "memory.memsw.limit_in_bytes"), String(bytes)).catch(() => {});
}

/** The first candidate in which a child cgroup can be made and `limit` written in it. */
async function firstWritable(candidates: readonly string[], limit: (probe: string) => Promise<void>): Promise<string | undefined> {
  for (const candidate of candidates) {
    const probe = join(candidate, `rein-probe-${randomBytes(4).toString("hex")}`);
    try {
      await mkdir(probe);
    } catch {
      // Not writable or not a cgroup directory: try the next one.
      continue;
    }
    try {
      await limit(probe);
      return candidate;
    } catch {
      // The controller is not enabled for children here.
    } finally {
      await rmdir(probe).catch(() => {});
    }
  }
  return undefined;
}

/** This process's own cgroups that could hold each controller: v1 hierarchies first, then v2 (whole or hybrid). */
function candidateRoots(): { pids: string[]; memory: string[] } {
  let lines: string[];
  try {
    lines = readFileSync("/proc/self/cgroup", "utf8").split("\n");
  } catch {
    return { pids: [], memory: [] };
  }
  const roots = { pids: [] as string[], memory: [] as string[] };
  const unified: string[] = [];
  for (const line of lines) {
    const [, controllers, path] = line.split(":");
    if (path === undefined || controllers === undefined) continue;
    const names = controllers.split(",");
    if (names.includes("pids")) roots.pids.push(join("/sys/fs/cgroup/pids", path));
    if (names.includes("memory")) roots.memory.push(join("/sys/fs/cgroup/memory", path));
    if (line.startsWith("0::")) unified.push(join("/sys/fs/cgroup", path), join("/sys/fs/cgroup/unified", path));
  }
  roots.pids.push(...unified);
  roots.memory.push(...unified);
  return roots;
}
