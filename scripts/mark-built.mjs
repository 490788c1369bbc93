#!/usr/bin/env node
// Run after a successful `turbo run build`: dates each package's dist/ no earlier than its sources, so the
// CLI runs the build turbo replayed from its cache instead of the sources (apps/orchestrator/bin/dist-freshness.js).
import { fileURLToPath } from "node:url";
import { markDistCurrent } from "../apps/orchestrator/bin/dist-freshness.js";

export function markBuilt() {
  markDistCurrent(fileURLToPath(new URL("../apps/orchestrator", import.meta.url)));
}

if (import.meta.url === `file://${process.argv[1]}`) markBuilt();
