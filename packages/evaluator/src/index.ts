export { evaluate, type EvaluatorDeps } from "./evaluate.ts";
export { startEvaluateConsumer, type EvaluateConsumerDeps } from "./evaluate-consumer.ts";
export { detectLoop, loopedByFingerprints, type LoopDetectorOptions, type LoopFinding } from "./loop-detector.ts";
export { stepFingerprint, runFingerprint } from "./fingerprints.ts";
export { checkClaims, checkClaimsAgainst, checkCriterion, checkStepHygiene, deniedActions, type CriterionOutcome, type EvidenceIndex } from "./rule-checks.ts";
export { asksQuestion } from "./question-goal.ts";
export { decideVerdict, type Findings, type PolicyOutcome, CLAIMS_RETRY_FEEDBACK, CHANGE_STRATEGY_FEEDBACK } from "./verdict-policy.ts";
export { resolvedStepLesson } from "./lesson-draft.ts";
export { judge, JudgeScore, type JudgeInput } from "./judge.ts";
