/**
 * `pnpm chaos`: Rein's roles as separate processes on a private Redis, under
 * worker, controller, Redis and network faults. Prints one line per check and
 * exits 1 when any fails. `--short` is the variant CI runs; `--shards N`
 * splits the queues into N shards (config `queues.shards`).
 */
import { rm } from "node:fs/promises";
import { parseArgs } from "node:util";
import { runChaos } from "./chaos-scenario.ts";

const { values } = parseArgs({
  options: { short: { type: "boolean" }, runs: { type: "string" }, keep: { type: "boolean" }, shards: { type: "string" } },
});
const short = values.short === true;
const runs = Number(values.runs ?? (short ? 24 : 200));
const report = await runChaos({
  runs,
  lockMs: short ? 3_000 : 4_000,
  stepWaitMs: short ? 1_500 : 2_000,
  settleMs: short ? 45_000 : 240_000,
  shards: Number(values.shards ?? 1),
  log: (line) => process.stderr.write(`chaos: ${line}\n`),
});

const failed = report.checks.filter((check) => !check.passed);
process.stdout.write(`\nchaos: ${report.runs} runs, ${report.faults.length} faults, ${report.seconds} s\n`);
for (const fault of report.faults) process.stdout.write(`  fault  ${fault}\n`);
for (const check of report.checks) {
  process.stdout.write(`  ${check.passed ? "pass" : "FAIL"}  ${check.name}${check.passed ? "" : ` (${check.findings.length})`}\n`);
  for (const finding of check.findings.slice(0, 10)) process.stdout.write(`          ${finding}\n`);
  if (check.findings.length > 10) process.stdout.write(`          … ${check.findings.length - 10} more\n`);
}
if (failed.length > 0 || values.keep) process.stdout.write(`chaos: logs, workspaces and AOF kept in ${report.dir}\n`);
else await rm(report.dir, { recursive: true, force: true });
process.stdout.write(`chaos: ${failed.length === 0 ? "passed" : `FAILED ${failed.length} of ${report.checks.length} checks`}\n`);
process.exit(failed.length === 0 ? 0 : 1);
