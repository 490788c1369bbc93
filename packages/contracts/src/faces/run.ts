// @rein/contracts/run: what a run is made of as it is stored and read back: its state and
// steps, the evaluator's verdicts, lessons, approvals and trace events.
export {
  EvidenceEntry,
  FINAL_ANSWER_STEP_ID,
  isTerminal,
  RunResult,
  RunState,
  RunStatus,
  STEPS_STOPPED_STATUSES,
  StepPhase,
  StepGroup,
  StepState,
  stopsSteps,
} from "../run-state.ts";
export { CheckResult, ClaimCheck, ClaimStatus, Verdict, VerdictDecision } from "../verdict.ts";
export { Lesson, LessonKind, lessonText } from "../lesson.ts";
export { APPROVAL_SCHEMA_VERSION, Approval, ApprovalStatus } from "../approval.ts";
export { TraceEvent } from "../trace-event.ts";
