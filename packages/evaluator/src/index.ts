export { startEvaluateConsumer } from "./evaluate-consumer.ts";
