import { defineConfig } from "vitest/config";

export default defineConfig({
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
