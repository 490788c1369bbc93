import { defineConfig } from "vitest/config";

// Tests run on the packages' TypeScript sources (the "@rein/source" export condition), not on dist/.
const sourceConditions = ["@rein/source", "import", "node", "default"];

export default defineConfig({
  resolve: { conditions: sourceConditions },
  ssr: { resolve: { conditions: sourceConditions } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Integration tests share one Redis; each isolates itself with its own key prefix.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
