#!/usr/bin/env node
// Runs a command with the pnpm the quick start found or installed on PATH, so
// `npm run typecheck | lint | build | bench` work on a machine without a
// global pnpm (turbo runs every package's script through pnpm).
import { spawnSync } from "node:child_process";
import { pnpmCommand, pnpmEnv } from "./bootstrap.mjs";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write("usage: node scripts/with-pnpm.mjs <command> [args…]\n");
  process.exit(2);
}
const result = spawnSync(command, args, { stdio: "inherit", env: pnpmEnv(pnpmCommand()) });
if (result.error) process.stderr.write(`with-pnpm: ${result.error.message}\n`);
process.exit(result.status ?? 1);
