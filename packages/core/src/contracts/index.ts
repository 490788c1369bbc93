export { HashString } from "./hash-string.ts";
export { JsonObject } from "./json-object.ts";
export { Role } from "./role.ts";
export { addUsage, totalTokens, Usage, zeroUsage } from "./usage.ts";
export {
  BudgetSpent,
  RunBudget,
  StepBudget,
} from "./budget.ts";
export {
  Scope,
  ToolGrant,
} from "./scope.ts";
export {
  IgnoredRule,
  PermissionDecision,
  PermissionOutcome,
  PolicyRule,
  ToolEffect,
} from "./permission.ts";
export {
  Goal,
  type GoalInput,
  GoalKind,
  MAX_GOAL_TEXT,
  ModelChoice,
  SeedName,
} from "./goal.ts";
export {
  AcceptanceCriterion,
  Claim,
  FinalAnswer,
  OutputContract,
  Plan,
  StepSpec,
} from "./plan.ts";
export {
  FailureClass,
  Observation,
  ObservedImage,
  Provenance,
  ToolCallEvent,
  ToolCallStatus,
  ToolResultEvent,
  ToolSpec,
} from "./tool-events.ts";
export {
  APPROVAL_SCHEMA_VERSION,
  Approval,
  ApprovalStatus,
} from "./approval.ts";
export {
  EvidenceRef,
  HandoffPacket,
  LessonRef,
  PacketBody,
  PacketBoundsContract,
  ResumeInput,
  TaskContract,
} from "./handoff-packet.ts";
export {
  DelegationRequest,
  StepResult,
  StepStatus,
  Suspension,
  ToolCallRecord,
} from "./step-result.ts";
export {
  Lesson,
  LessonKind,
  lessonText,
} from "./lesson.ts";
export {
  CheckResult,
  ClaimCheck,
  ClaimStatus,
  Verdict,
  VerdictDecision,
} from "./verdict.ts";
export { TraceEvent } from "./trace-event.ts";
export {
  EvidenceEntry,
  FINAL_ANSWER_STEP_ID,
  FinalProposal,
  isTerminal,
  RunResult,
  RunState,
  RunStatus,
  StepPhase,
  StepState,
  TERMINAL_STATUSES,
  VerdictSummary,
} from "./run-state.ts";
export {
  ControlEvent,
  type ControlEventType,
} from "./control-event.ts";
export {
  ContextJob,
  ControlJob,
  EvaluateJob,
  EvaluateRequest,
  EvidenceFact,
  EvidenceSource,
  FinalAnswerEvaluateJob,
  PlanJob,
  PlannerContext,
  StepEvaluateJob,
  StepEvaluateRequest,
  StepJob,
  StepJobAddress,
} from "./jobs.ts";
export {
  ControllerEffect,
} from "./controller-effect.ts";
export {
  ContentBlockContract,
  ModelApi,
  ModelMessageContract,
  ModelToolSchemaContract,
  StructuredOutputContract,
} from "./model-message.ts";
export {
  StepCheckpoint,
} from "./step-checkpoint.ts";
