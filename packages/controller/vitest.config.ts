import { defineConfig } from "vitest/config";

// Running vitest from this package would otherwise pick up the root config,
// whose include globs are relative to the repository root and match nothing here.
// Tests run on the packages' TypeScript sources (the "@rein/source" export condition), not on dist/.
const sourceConditions = ["@rein/source", "import", "node", "default"];

export default defineConfig({
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions } },
  test: {
    include: ["test/**/*.test.ts"],
    // Sized for a loaded two-core machine (CI beside other jobs, or `stress --cpu 4`), where a
    // test that spawns processes takes several times as long as alone. Waits inside tests stay bounded.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
