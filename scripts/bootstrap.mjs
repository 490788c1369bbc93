#!/usr/bin/env node
// Makes a fresh clone runnable with only Node 20 and npm: finds or installs
// pnpm (a global one, else a private copy under .tools/), then installs the
// workspace. Corepack is not used: it fails on machines without network
// access to its own download host.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const PNPM_VERSION = "12.4.2";
const root = new URL("..", import.meta.url).pathname;
const localPnpm = join(root, ".tools", "node_modules", ".bin", "pnpm");

function works(command) {
  const result = spawnSync(command, ["--version"], { encoding: "utf8" });
  return result.status === 0 && result.stdout.trim() === PNPM_VERSION;
}

export function pnpmCommand() {
  if (works("pnpm")) return "pnpm";
  if (existsSync(localPnpm) && works(localPnpm)) return localPnpm;
  process.stderr.write(`bootstrap: installing pnpm ${PNPM_VERSION} into .tools/\n`);
  execFileSync("npm", ["install", "--prefix", join(root, ".tools"), "--no-save", "--no-audit", "--no-fund", `pnpm@${PNPM_VERSION}`], { stdio: "inherit" });
  return localPnpm;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const pnpm = pnpmCommand();
  const marker = join(root, "node_modules", ".modules.yaml");
  const args = ["install", "--frozen-lockfile", "--reporter=append-only"];
  if (!existsSync(marker) || process.env.CI) process.stderr.write("bootstrap: installing the workspace\n");
  execFileSync(pnpm, args, { cwd: root, stdio: ["ignore", existsSync(marker) && !process.env.CI ? "ignore" : "inherit", "inherit"] });
}
