import { existsSync, readFileSync } from "node:fs";
import { mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";

/**
 * A cgroup of the `pids` controller for one sandboxed call: the only limit
 * on process count that holds for root (the kernel ignores RLIMIT_NPROC for
 * uid 0, and a user namespace maps the sandbox's uid back to it).
 */
export class PidsCgroup {
  private constructor(readonly dir: string) {}

  /** Where this process may create pids cgroups, or undefined when it may not (no controller, not delegated). */
  static async findRoot(): Promise<string | undefined> {
    for (const candidate of candidateRoots()) {
      const probe = join(candidate, `rein-probe-${randomBytes(4).toString("hex")}`);
      try {
        await mkdir(probe);
        try {
          if (existsSync(join(probe, "pids.max"))) {
            await writeFile(join(probe, "pids.max"), "8");
            return candidate;
          }
        } finally {
          await rmdir(probe).catch(() => {});
        }
      } catch {
        // Not writable or not a cgroup directory: try the next one.
      }
    }
    return undefined;
  }

  static async create(root: string, maxProcesses: number): Promise<PidsCgroup> {
    const dir = join(root, `rein-${randomBytes(8).toString("hex")}`);
    await mkdir(dir);
    await writeFile(join(dir, "pids.max"), String(maxProcesses));
    return new PidsCgroup(dir);
  }

  /** The file a process writes its pid into to join. */
  get procsFile(): string {
    return join(this.dir, "cgroup.procs");
  }

  /** SIGKILLs every process in the cgroup, synchronously, so an abort handler can call it. */
  killAll(): void {
    let pids: string[];
    try {
      pids = readFileSync(this.procsFile, "utf8").split("\n").filter(Boolean);
    } catch {
      return;
    }
    for (const pid of pids) {
      try {
        process.kill(Number(pid), "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  }

  /** Kills what is left and removes the cgroup; a cgroup is removable only once empty. */
  async dispose(): Promise<void> {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      this.killAll();
      try {
        await rmdir(this.dir);
        return;
      } catch {
        await new Promise((resolveDelay) => setTimeout(resolveDelay, 20));
      }
    }
  }

  async processCount(): Promise<number> {
    return (await readFile(this.procsFile, "utf8")).split("\n").filter(Boolean).length;
  }
}

/** This process's own pids cgroup, v1 (`N:pids:/path`) then v2 (`0::/path`). */
function candidateRoots(): string[] {
  let lines: string[];
  try {
    lines = readFileSync("/proc/self/cgroup", "utf8").split("\n");
  } catch {
    return [];
  }
  const roots: string[] = [];
  for (const line of lines) {
    const [, controllers, path] = line.split(":");
    if (path === undefined || controllers === undefined) continue;
    if (controllers.split(",").includes("pids")) roots.push(join("/sys/fs/cgroup/pids", path));
    if (line.startsWith("0::")) roots.push(join("/sys/fs/cgroup", path));
  }
  return roots;
}
