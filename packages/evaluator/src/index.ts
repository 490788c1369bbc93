export { evaluateJobRunner, startEvaluateConsumer } from "./evaluate-consumer.ts";
