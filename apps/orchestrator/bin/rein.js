#!/usr/bin/env node
// Runs the compiled CLI (dist/). In a checkout whose TypeScript sources are
// missing from dist or newer than it, it runs the sources through tsx
// instead: always the code on disk, at ~3.5 s of CPU per start until
// `npm run build` (which `npm test` and `npm run demo` do first).
import { existsSync, readdirSync, statSync } from "node:fs";
import { register } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const compiled = join(packageDir, "dist", "cli", "main.js");

/** This package and, in the workspace, every package it is built from. */
function checkoutPackages() {
  const workspacePackages = join(packageDir, "..", "..", "packages");
  const siblings = existsSync(join(packageDir, "..", "..", "pnpm-workspace.yaml")) ? readdirSync(workspacePackages).map((name) => join(workspacePackages, name)) : [];
  return [packageDir, ...siblings].filter((dir) => existsSync(join(dir, "src")));
}

function newestSource(srcDir) {
  let newest = 0;
  for (const entry of readdirSync(srcDir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath ?? entry.path, entry.name)).mtimeMs);
  }
  return newest;
}

function compiledIsCurrent() {
  if (!existsSync(compiled)) return false;
  return checkoutPackages().every((dir) => {
    const built = join(dir, "dist", "index.js");
    return existsSync(built) && statSync(built).mtimeMs >= newestSource(join(dir, "src"));
  });
}

let main;
if (compiledIsCurrent()) {
  ({ main } = await import(compiled));
} else {
  if (process.stderr.isTTY) process.stderr.write("rein: dist/ is missing or older than src/; running the TypeScript sources (slow start; `npm run build` fixes it)\n");
  const { register: registerTsx } = await import("tsx/esm/api");
  registerTsx();
  // Registered after tsx so it runs first: workspace packages then resolve to their sources, not to dist.
  register("data:text/javascript,export const resolve = (specifier, context, next) => next(specifier, { ...context, conditions: [...context.conditions, '@rein/source'] });");
  ({ main } = await import("../src/cli/main.ts"));
}
process.exit(await main(process.argv.slice(2)));
