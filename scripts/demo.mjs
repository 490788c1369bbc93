#!/usr/bin/env node
// `npm run demo`: runs examples/bugfix end to end with the offline models.
import { spawnSync } from "node:child_process";

const root = new URL("..", import.meta.url).pathname;
const result = spawnSync(process.execPath, ["apps/orchestrator/bin/rein.js", "run", "--example", "bugfix", ...process.argv.slice(2)], {
  cwd: root,
  stdio: "inherit",
});
process.exit(result.status ?? 1);
