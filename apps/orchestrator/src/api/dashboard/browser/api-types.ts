/**
 * What the page reads from the HTTP API, as the server declares it: the
 * compiler ties each view to the route it draws. Types only; the bundle
 * holds none of the server's code (browser-script.ts refuses one that does).
 */
export type { RunState, RunStatus, TraceEvent } from "@rein/contracts/run";
export type { Artifact, LiveEvent } from "@rein/runtime";
export type { TraceKind } from "@rein/trace";
export type { QueuedApproval, EvidenceCall } from "../../../approvals/approval-queue.ts";
export type { Caller } from "../../api-tokens.ts";
export type { QueueOverview } from "../../queue-overview.ts";
export type { RunPage, RunSummary, StatusCounts } from "../../run-summaries.ts";
export type {
  AnswerView,
  AttemptView,
  CallInFlightView,
  CallView,
  ClaimView,
  EvidenceLink,
  GroupView,
  PlanHistory,
  RunView,
  StepNode,
  TimelineEntry,
  UsageLine,
  UsageView,
  VerdictView,
} from "../../../trace/views/run-view/run-view-model.ts";
