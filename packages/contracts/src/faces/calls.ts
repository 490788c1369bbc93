// @rein/contracts/calls: a tool call's life as it is recorded: its spec, observation and
// result, the intent and outcome records that make it happen once, checkpoints, and the
// action hash an approval signs.
export { FailureClass, Observation, Provenance, ToolCallStatus, ToolResultEvent, ToolSpec } from "../tool-events.ts";
export { CallIntent, CallRecord, RecordedFailure, RecordedOutcome } from "../call-record.ts";
export { RecordedResult } from "../recorded-result.ts";
export { StepCheckpoint } from "../step-checkpoint.ts";
export { type ApprovalAction, actionHashOf } from "../action-hash.ts";
