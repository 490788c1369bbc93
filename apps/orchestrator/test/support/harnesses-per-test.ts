import { afterEach } from "vitest";
import { type Harness, startHarness } from "./harness.ts";

/** Starts harnesses (startHarness) for the test that asks; every one a test started is closed after it. */
export function harnessesPerTest(): { start: typeof startHarness } {
  const started: Harness[] = [];
  afterEach(async () => {
    for (const harness of started.splice(0)) await harness.close();
  });
  return {
    start: async (...args) => {
      const harness = await startHarness(...args);
      started.push(harness);
      return harness;
    },
  };
}
