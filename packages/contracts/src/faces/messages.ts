// @rein/contracts/messages: what travels on the queues: each role's job, the control
// events every role sends the controller, and the effects the controller performs.
export {
  ContextJob,
  EvaluateJob,
  EvaluateRequest,
  EvidenceFact,
  FinalAnswerEvaluateJob,
  PlanJob,
  PlannerContext,
  StepEvaluateJob,
  StepEvaluateRequest,
  StepJob,
  StepJobAddress,
  STEP_RESULT_JOB,
} from "../jobs.ts";
export { ControlEvent, type StepFinishedEvent } from "../control-event.ts";
export { ControllerEffect } from "../controller-effect.ts";
