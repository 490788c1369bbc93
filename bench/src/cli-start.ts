import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchEnv } from "./bench-env.ts";

const REIN_BIN = fileURLToPath(new URL("../../apps/orchestrator/bin/rein.js", import.meta.url));
// Preloaded into each child: its own user+sys CPU at exit, written where the parent reads it.
const REPORT_CPU = `data:text/javascript,import { writeFileSync } from "node:fs"; process.on("exit", () => { const { user, system } = process.cpuUsage(); writeFileSync(process.env.REIN_BENCH_CPU_FILE, String((user + system) / 1000)); });`;

/** The median user+sys CPU (ms) of `times` starts of `node [args]`, each run to its exit. */
export function cpuPerStart(args: readonly string[], env: Record<string, string>, times: number): number {
  const scratch = mkdtempSync(join(tmpdir(), "rein-bench-cpu-"));
  const cpuFile = join(scratch, "cpu");
  try {
    const samples: number[] = [];
    for (let run = 0; run < times; run += 1) {
      const result = spawnSync(process.execPath, ["--import", REPORT_CPU, ...args], {
        env: { ...process.env, ...env, REIN_BENCH_CPU_FILE: cpuFile },
        encoding: "utf8",
        timeout: 60_000,
      });
      if (result.status !== 0) throw new Error(`node ${args.join(" ")} exited ${result.status}: ${result.stderr}`);
      samples.push(Number(readFileSync(cpuFile, "utf8")));
    }
    samples.sort((a, b) => a - b);
    return samples[Math.floor(samples.length / 2)] ?? Number.NaN;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export interface CliStarts {
  bareNode: number;
  help: number;
  status: number;
}

/**
 * CPU per start of the `rein` binary as a user runs it: `rein --help`, and
 * `rein status <id>` on a queued run (which connects to Redis). The binary
 * runs dist/ when it is current, so build first (`pnpm build`).
 */
export function cliStarts(env: BenchEnv, times: number): CliStarts {
  const childEnv = env.childEnv;
  const submitted = spawnSync(process.execPath, [REIN_BIN, "submit", "--example", "bugfix"], {
    env: { ...process.env, ...childEnv },
    encoding: "utf8",
    timeout: 60_000,
  });
  const runId = /\brun_[A-Za-z0-9_-]+/.exec(submitted.stdout)?.[0];
  if (!runId) throw new Error(`rein submit printed no run id: ${submitted.stdout}${submitted.stderr}`);
  return {
    bareNode: cpuPerStart(["-e", ""], childEnv, times),
    help: cpuPerStart([REIN_BIN, "--help"], childEnv, times),
    status: cpuPerStart([REIN_BIN, "status", runId], childEnv, times),
  };
}
