export { createTestRuntime, TEST_REDIS_URL, type TestRuntime } from "./test-runtime.ts";
