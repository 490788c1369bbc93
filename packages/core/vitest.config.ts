import { defineConfig } from "vitest/config";

// Running vitest from this package would otherwise pick up the root config,
// whose include globs are relative to the repository root and match nothing here.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    maxWorkers: 2,
  },
});
