export { planJobRunner, startPlanConsumer } from "./plan-consumer.ts";
