import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../../../..");

/** The pnpm the quick start uses (a global one, else the private copy under .tools/); undefined when there is none. */
export function findPnpm(): string | undefined {
  const local = join(ROOT, ".tools", "node_modules", ".bin", "pnpm");
  for (const candidate of ["pnpm", local]) {
    if (candidate !== "pnpm" && !existsSync(candidate)) continue;
    if (spawnSync(candidate, ["--version"], { encoding: "utf8", timeout: 30_000 }).status === 0) return candidate;
  }
  return undefined;
}

/** Runs pnpm with itself on PATH (turbo runs package scripts through it); throws with its output when it fails. */
export function pnpmRun(pnpm: string | undefined, args: string[], cwd: string, timeoutMs: number): string {
  if (!pnpm) throw new Error("no pnpm: run the quick start (npm test) first");
  const path = [join(ROOT, "node_modules", ".bin"), ...(pnpm === "pnpm" ? [] : [dirname(pnpm)]), process.env.PATH].join(":");
  try {
    return execFileSync(pnpm, args, {
      cwd,
      encoding: "utf8",
      timeout: timeoutMs,
      env: { ...process.env, PATH: path },
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`pnpm ${args.join(" ")} (in ${cwd}) failed: ${failed.message}\n${failed.stdout ?? ""}${failed.stderr ?? ""}`);
  }
}
