import { defineConfig } from "vitest/config";

// Tests run on the packages' TypeScript sources (the "@rein/source" export condition), not on dist/.
const sourceConditions = ["@rein/source", "import", "node", "default"];

export default defineConfig({
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "bench/test/**/*.test.ts"],
    // Sized for a loaded two-core machine (CI beside other jobs, or `stress --cpu 4`), where a
    // test that spawns processes takes several times as long as alone. Waits inside tests stay bounded.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Integration tests share one Redis; each isolates itself with its own key prefix.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
