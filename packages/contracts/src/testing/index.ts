// For other packages' tests: a valid example of each contract, and the fixture plumbing every test kit builds on.
export { packetBody } from "./contract-examples.ts";
export { fixtureAround, type HookRegistrar, liveView } from "./fixture-around.ts";
export { toolCallRecord } from "./tool-call-record.ts";
export { until } from "./until.ts";
export { packagesLoadedBy } from "./packages-loaded.ts";
