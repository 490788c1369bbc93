import type { Worker } from "bullmq";
import type { ReinConfigInput } from "../config/config.ts";
import type { ControlEvent } from "../contracts/control-event.ts";
import { recordSentControl } from "./sent-control.ts";
import { createTestRuntime, type TestRuntime } from "./test-runtime.ts";

/**
 * The test framework's per-test hook registrars (vitest's `beforeEach` and
 * `afterEach`), passed in so that this published face depends on none.
 */
export interface TestHooks {
  beforeEach(hook: () => Promise<void>): void;
  afterEach(hook: () => Promise<void>): void;
}

/** Throws when a per-test value is read outside a test: a fixture read at a file's top level would be another test's. */
function openDuringTest<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("a per-test fixture is open only while a test runs");
  return value;
}

/** A test runtime fresh for each test of the file or `describe` that calls this, deleted after it. */
export function testRuntimePerTest(hooks: TestHooks, overrides: ReinConfigInput = {}): { readonly runtime: TestRuntime } {
  let runtime: TestRuntime | undefined;
  hooks.beforeEach(async () => {
    runtime = await createTestRuntime(overrides);
  });
  hooks.afterEach(async () => {
    await runtime?.cleanup();
    runtime = undefined;
  });
  return {
    get runtime() {
      return openDuringTest(runtime);
    },
  };
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
  let open: { runtime: TestRuntime; sent: ControlEvent[]; consumer?: Worker | undefined } | undefined;
  hooks.beforeEach(async () => {
    const runtime = await createTestRuntime();
    open = { runtime, sent: recordSentControl(runtime.queues) };
  });
  hooks.afterEach(async () => {
    const closing = open;
    open = undefined;
    await closing?.consumer?.close(true);
    await closing?.runtime.cleanup();
  });
  return {
    get runtime() {
      return openDuringTest(open).runtime;
    },
    get sent() {
      return openDuringTest(open).sent;
    },
    get consumer() {
      return openDuringTest(open).consumer;
    },
    set consumer(worker) {
      openDuringTest(open).consumer = worker;
    },
  };
}
