// Whether a checkout's compiled CLI is its sources' build, judged by file times. turbo's build replays a
// package from its cache when its sources' contents are unchanged and leaves dist/ as it was, so a source
// rewritten unchanged (a checkout, a stash, an editor) looks newer than a build that is current:
// after turbo succeeds, the build marks dist/ current itself (markDistCurrent).
import { existsSync, readdirSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";

/** The package at `packageDir` and, in the workspace, every package it is built from. */
function checkoutPackages(packageDir) {
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

/** True when the CLI at `packageDir` is compiled and no package's sources are newer than its dist/. */
export function compiledIsCurrent(packageDir) {
  if (!existsSync(join(packageDir, "dist", "cli", "main.js"))) return false;
  return checkoutPackages(packageDir).every((dir) => {
    const built = join(dir, "dist", "index.js");
    return existsSync(built) && statSync(built).mtimeMs >= newestSource(join(dir, "src"));
  });
}

/** After a build succeeded: each package's dist/index.js dated no earlier than its newest source. */
export function markDistCurrent(packageDir) {
  for (const dir of checkoutPackages(packageDir)) {
    const built = join(dir, "dist", "index.js");
    if (!existsSync(built)) continue;
    const newest = newestSource(join(dir, "src"));
    if (statSync(built).mtimeMs >= newest) continue;
    const at = new Date(Math.max(Date.now(), newest));
    utimesSync(built, at, at);
  }
}
