// @rein/runtime/testing, for other packages' tests: a runtime on the test Redis under its own
// prefix, a role's consumer per test, a job lock that lapses on demand, what a test reads back,
// and the commands a connection sends.
export { createTestRuntime, TEST_REDIS_URL, type TestRuntime } from "./test-runtime.ts";
export { type ConsumerFixture, consumerPerTest, type TestHooks, testRuntimePerTest } from "./per-test.ts";
export { type LapsingLock, lapsingLock } from "./lapsing-lock.ts";
export { recordSentControl } from "./sent-control.ts";
export { commandsSent, type SentCommand } from "./commands-sent.ts";
export { type TraceEnvelope, traceEventOf } from "./trace-event-of.ts";
export { warningsLogged } from "./warnings-logged.ts";
export { echoConversation } from "./echo-conversation.ts";
export { waitForRun } from "./wait-for-run.ts";
export { closedAfterEach } from "./closed-after-each.ts";
