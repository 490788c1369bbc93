#!/usr/bin/env node
// `npm test`: typecheck and lint every package, check the dependency rules,
// make sure Redis is up, then run every test once and print the totals.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pnpmCommand, pnpmEnv } from "./bootstrap.mjs";
import { ensureRedis } from "./ensure-redis.mjs";

const root = new URL("..", import.meta.url).pathname;
const pnpm = pnpmCommand();
const env = pnpmEnv(pnpm);
const check = (label, args) => {
  const result = spawnSync(pnpm, args, { cwd: root, stdio: "inherit", env });
  if (result.status !== 0) console.error(`test: ${label} failed`);
  return result.status === 0;
};

// Static checks first; the tests still run when one fails, so a run shows everything wrong at once.
const checksPassed = [
  check("typecheck and lint", ["exec", "turbo", "run", "typecheck", "lint", "--continue", "--output-logs=errors-only"]),
  check("dependency rules", ["run", "check:deps"]),
].every(Boolean);
await ensureRedis();

const report = join(root, ".test-results.json");
rmSync(report, { force: true });
const vitest = spawnSync(pnpm, ["exec", "vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`], {
  cwd: root,
  stdio: "inherit",
  env,
});
let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(report)) {
  const results = JSON.parse(readFileSync(report, "utf8"));
  passed = results.numPassedTests;
  // A file that fails to load fails no test but must still count as a failure.
  failed = results.numFailedTests + (results.numFailedTests === 0 && !results.success ? Math.max(1, results.numFailedTestSuites) : 0);
  skipped = results.numPendingTests + results.numTodoTests;
} else {
  failed = 1;
}
console.log(`tests: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`);
process.exit(vitest.status === 0 && failed === 0 && checksPassed ? 0 : 1);
