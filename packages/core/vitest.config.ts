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
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
