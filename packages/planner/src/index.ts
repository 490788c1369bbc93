export { startPlanConsumer } from "./plan-consumer.ts";
