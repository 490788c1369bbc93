// What crosses a process or trust boundary, as zod schemas with same-named types,
// and the few primitives every package shares: the error family, canonical hashing, ids.
export { errorMessage, ReinError } from "./errors.ts";
export { canonicalJson, hashOf, type Sha256, sha256 } from "./canonical-json.ts";
export { idFrom, newId } from "./ids.ts";
export { closestName } from "./closest-name.ts";
export { readJsonFile } from "./json-file.ts";
export { jsonSchemaOf } from "./json-schema-of.ts";
export { EnvName } from "./env-name.ts";
export { HashString } from "./hash-string.ts";
export { JsonObject } from "./json-object.ts";
export { Role } from "./role.ts";
export { addUsage, totalTokens, Usage, zeroUsage } from "./usage.ts";
export { BudgetSpent, RunBudget, StepBudget } from "./budget.ts";
export { Scope, ToolGrant } from "./scope.ts";
export { IgnoredRule, PermissionDecision, PermissionOutcome, PolicyRule, ToolEffect } from "./permission.ts";
export { Goal, type GoalInput, GoalKind } from "./goal.ts";
export { AcceptanceCriterion, Claim, FinalAnswer, Plan, StepSpec } from "./plan.ts";
export { FailureClass, Observation, ObservedImage, Provenance, ToolCallStatus, ToolResultEvent, ToolSpec } from "./tool-events.ts";
export { APPROVAL_SCHEMA_VERSION, Approval, ApprovalStatus } from "./approval.ts";
export { HandoffPacket, LessonRef, PacketBody, ResumeInput } from "./handoff-packet.ts";
export { DelegationRequest, StepResult, StepStatus, Suspension, ToolCallRecord } from "./step-result.ts";
export { Lesson, LessonKind, lessonText } from "./lesson.ts";
export { CheckResult, ClaimCheck, ClaimStatus, Verdict, VerdictDecision } from "./verdict.ts";
export { TraceEvent } from "./trace-event.ts";
export {
  EvidenceEntry,
  FINAL_ANSWER_STEP_ID,
  isTerminal,
  RunResult,
  RunState,
  RunStatus,
  STEPS_STOPPED_STATUSES,
  StepPhase,
  StepState,
  stopsSteps,
} from "./run-state.ts";
export { ControlEvent } from "./control-event.ts";
export {
  ContextJob,
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
export { ControllerEffect } from "./controller-effect.ts";
export { ContentBlock, ModelApi, ModelMessage, ModelToolSchema, StructuredOutputRequest, type ThinkingContent } from "./model-message.ts";
export { StepCheckpoint } from "./step-checkpoint.ts";
export { type ApprovalAction, actionHashOf } from "./action-hash.ts";
export { CallIntent, CallRecord, RecordedFailure, RecordedOutcome } from "./call-record.ts";
export { RecordedResult } from "./recorded-result.ts";
