export { runStepLoop } from "./step-loop.ts";
export { startStepConsumer } from "./step-consumer.ts";
export { WORKER_SYSTEM, renderTask } from "./worker-prompt.ts";
