export { runStepLoop, type StepLoopDeps } from "./step-loop.ts";
export { startStepConsumer, type StepConsumerDeps } from "./step-consumer.ts";
export { WORKER_SYSTEM, renderTask } from "./worker-prompt.ts";
