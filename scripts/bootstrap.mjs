#!/usr/bin/env node
// Makes a fresh clone runnable with only Node 20 and npm: finds or installs
// pnpm (a global one, else a private copy under .tools/), installs the
// workspace, then builds it (turbo replays unchanged packages from its cache)
// so `npx rein` runs compiled JavaScript. Corepack is not used: it fails on machines without network
// access to its own download host.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { markBuilt } from "./mark-built.mjs";

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

/** The environment for commands that run pnpm themselves (turbo runs each package's scripts with it). */
export function pnpmEnv(pnpm, env = process.env) {
  const bins = [join(root, "node_modules", ".bin"), ...(pnpm === "pnpm" ? [] : [dirname(pnpm)])];
  return { ...env, PATH: [...bins, env.PATH].join(":"), TURBO_TELEMETRY_DISABLED: "1", DO_NOT_TRACK: "1" };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const pnpm = pnpmCommand();
  const marker = join(root, "node_modules", ".modules.yaml");
  const args = ["install", "--frozen-lockfile", "--reporter=append-only"];
  if (!existsSync(marker) || process.env.CI) process.stderr.write("bootstrap: installing the workspace\n");
  const quiet = existsSync(marker) && !process.env.CI;
  execFileSync(pnpm, args, { cwd: root, stdio: ["ignore", quiet ? "ignore" : "inherit", "inherit"] });
  execFileSync(pnpm, ["exec", "turbo", "run", "build", "--output-logs=errors-only"], { cwd: root, stdio: ["ignore", quiet ? "ignore" : "inherit", "inherit"], env: pnpmEnv(pnpm) });
  markBuilt();
}
