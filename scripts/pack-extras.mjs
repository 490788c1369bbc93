#!/usr/bin/env node
// A package's `prepack`/`postpack`: puts the repository's LICENSE (and, for
// the orchestrator, the examples `rein run --example` loads) into the package
// folder for the tarball, and removes them afterwards so the checkout keeps
// one copy of each.
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const packageDir = process.cwd();
const [action, ...examples] = process.argv.slice(2);
const extras = [
  { from: join(root, "LICENSE"), to: join(packageDir, "LICENSE") },
  ...examples.map((name) => ({ from: join(root, "examples", name), to: join(packageDir, "examples", name) })),
];

// In the checkout an example's tools.ts reaches the tool kit by path (examples are not workspace packages); installed, it is a package.
const TOOLS_BY_PATH = '"../../packages/tools/src/index.ts"';

if (action === "add") {
  for (const { from, to } of extras) cpSync(from, to, { recursive: true });
  for (const name of examples) {
    const tools = join(packageDir, "examples", name, "tools.ts");
    if (existsSync(tools)) writeFileSync(tools, readFileSync(tools, "utf8").replaceAll(TOOLS_BY_PATH, '"@rein/tools"'));
  }
} else if (action === "remove") {
  rmSync(join(packageDir, "LICENSE"), { force: true });
  if (examples.length > 0) rmSync(join(packageDir, "examples"), { recursive: true, force: true });
} else {
  throw new Error(`pack-extras: expected add or remove, got ${action}`);
}
