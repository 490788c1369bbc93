import type { Worker } from "bullmq";
import type { ReinConfigInput } from "../config/config.ts";
import type { ControlEvent } from "@rein/contracts/messages";
import { fixtureAround, type HookRegistrar, liveView } from "@rein/contracts/testing";
import { recordSentControl } from "./sent-control.ts";
import { createTestRuntime, type TestRuntime } from "./test-runtime.ts";

/**
 * The test framework's per-test hook registrars (vitest's `beforeEach` and
 * `afterEach`), passed in so that this published face depends on none.
 */
export interface TestHooks {
  beforeEach: HookRegistrar;
  afterEach: HookRegistrar;
}

/** A test runtime fresh for each test of the file or `describe` that calls this, deleted after it. */
export function testRuntimePerTest(hooks: TestHooks, overrides: ReinConfigInput = {}): { readonly runtime: TestRuntime } {
  const current = fixtureAround(
    hooks.beforeEach,
    hooks.afterEach,
    "the test runtime",
    async () => ({ runtime: await createTestRuntime(overrides) }),
    ({ runtime }) => runtime.cleanup(),
  );
  return liveView(current, ["runtime"]);
}

/** What a role consumer's test works with: its runtime, what was sent on it, and the consumer it started. */
export interface ConsumerFixture {
  readonly runtime: TestRuntime;
  /** Every control event sent during the test, in order (recordSentControl). */
  readonly sent: ControlEvent[];
  /** The consumer the test started; closed after the test, before its runtime is deleted. */
  consumer: Worker | undefined;
}

/** A test runtime recording the control events sent on it, fresh for each test, with a place for the consumer the test starts. */
export function consumerPerTest(hooks: TestHooks): ConsumerFixture {
  const current = fixtureAround(
    hooks.beforeEach,
    hooks.afterEach,
    "the consumer's test runtime",
    async (): Promise<ConsumerFixture> => {
      const runtime = await createTestRuntime();
      return { runtime, sent: recordSentControl(runtime.queues), consumer: undefined };
    },
    async ({ consumer, runtime }) => {
      await consumer?.close(true);
      await runtime.cleanup();
    },
  );
  return liveView(current, ["runtime", "sent", "consumer"]);
}
