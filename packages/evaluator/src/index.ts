export { evaluate, type EvaluatorDeps } from "./evaluate.ts";
export { startEvaluateConsumer, type EvaluateConsumerDeps } from "./evaluate-consumer.ts";
export { detectLoop, type LoopDetectorOptions, type LoopFinding } from "./loop-detector.ts";
export { checkClaims, checkCriterion, checkStepHygiene, type ClaimStatus } from "./rule-checks.ts";
export { judge, JudgeScore } from "./judge.ts";
