import type { BudgetSpent, RunBudget, StepStatus, Usage } from "@rein/contracts";
import type { CheckResult, ClaimStatus, RunStatus, VerdictDecision } from "@rein/contracts/run";
import type { ToolCallStatus } from "@rein/contracts/calls";

/**
 * A run as the dashboard's run page shows it, built from the trace (and the
 * run's state, for what only the state holds: the answer and the spend
 * against the budget). `GET /runs/{id}/view` returns it.
 */
export interface RunView {
  runId: string;
  goal: string;
  status: RunStatus | null;
  stopReason: string | null;
  startedAt: string | null;
  /** The last event's time. */
  lastEventAt: string | null;
  plan: PlanHistory;
  graph: StepGraph;
  timeline: TimelineEntry[];
  calls: CallView[];
  /**
   * Tool calls running now that the trace does not hold yet (a step's turn
   * is written after its calls end), oldest first; empty once the run ended.
   * A call leaves this list when it enters `calls`.
   */
  inFlight: CallInFlightView[];
  verdicts: VerdictView[];
  usage: UsageView;
  answer: AnswerView | null;
  /** Events the trace catalogue does not know or whose payload it cannot read; the view leaves them out. */
  unreadable: { seq: number; kind: string; problem: string }[];
}

export interface CallInFlightView {
  /** The key its `calls` element will have. */
  key: string;
  stepId: string;
  callId: string;
  tool: string;
  index: number;
  startedAt: string;
  /** Redacted; null when over 4 KiB. */
  input: unknown;
  /** The last progress the tool reported, if any. */
  progress: { progress: number; total: number | null; message: string | null } | null;
}

export type PlanTrigger = "first" | "after_step" | "replan" | "after_instruction" | "answer_rejected" | "after_context";

export interface PlanRevision {
  planNo: number;
  at: string;
  done: boolean;
  currentStep: string | null;
  nextSteps: string[];
  risks: string[];
  lessonsUsed: string[];
  trigger: PlanTrigger;
  /** Why the planner planned again: the verdict's reasons, the person's instruction; empty for the first plan. */
  reason: string;
}

export interface PlanHistory {
  /** The newest accepted plan, or null before the first. */
  current: PlanRevision | null;
  revisions: PlanRevision[];
}

export interface AttemptView {
  attempt: number;
  dispatchedAt: string;
  finishedAt: string | null;
  durationMs: number | null;
  /** How the worker reported the attempt; null while it runs. */
  status: StepStatus | null;
  turns: number | null;
  error: string | null;
  /** The evaluator's feedback this attempt was dispatched with (a retry's). */
  feedback: string | null;
  verdict: VerdictDecision | null;
  /** Keys of `calls` made in this attempt, in order. */
  callKeys: string[];
}

export interface StepNode {
  stepId: string;
  title: string;
  parentStepId: string | null;
  depth: number;
  /** Why the parent delegated this step; null for a planned step. */
  delegationReason: string | null;
  attempts: AttemptView[];
  usage: Usage;
}

export interface StepEdge {
  from: string;
  to: string;
  /** "next": planned steps in dispatch order (each member of a group follows what came before it); "delegated": a worker handed part of its task to a child. */
  kind: "next" | "delegated";
}

export interface StepGraph {
  steps: StepNode[];
  edges: StepEdge[];
  /** Steps dispatched at once (a plan's parallel steps, or one step's children), in the order they started. */
  groups: GroupView[];
}

export interface GroupView {
  groupId: string;
  /** The step whose children these are; null for a plan's group. */
  parentStepId: string | null;
  /** In the order asked, which is the order the join reads them in. */
  stepIds: string[];
  /** "all", "any" or "quorum n". */
  join: string;
  outcome: "running" | "joined" | "failed";
  /** Members the join cancelled. */
  cancelled: string[];
}

export interface TimelineEntry {
  seq: number;
  at: string;
  /** Milliseconds since the run's first event. */
  offsetMs: number;
  durationMs: number | null;
  kind: string;
  stepId: string | null;
  label: string;
  /** Set for a tool call's entry: the key of its `calls` element. */
  callKey: string | null;
  /** True for what went wrong: a failed call or step, a rejecting verdict, a failed run. */
  failed: boolean;
}

export interface PermissionView {
  decision: string;
  rule: string;
  reason: string;
}

export interface CallView {
  /** Step, call id and index: call ids alone repeat across steps and attempts. */
  key: string;
  callId: string;
  stepId: string | null;
  attempt: number | null;
  index: number;
  tool: string;
  /** The seq and time of the call's `tool.called` event. */
  seq: number;
  at: string;
  input: unknown;
  inputBytes: number;
  /** "ok", "exit 1", "killed by SIGKILL", "HTTP 503", the result's status, or "no result". */
  status: string;
  outcome: ToolCallStatus | null;
  /** The call failed, or ran and reported failure (a non-zero exit, an HTTP error status). */
  failed: boolean;
  exitCode: number | null;
  httpStatus: number | null;
  durationMs: number | null;
  permission: PermissionView | null;
  /** What happened at the approval desk, e.g. "requested apr_1", "consumed (approved by http:ana)". */
  approval: string | null;
  /** Why the call was not executed or failed, as the runtime said it. */
  message: string | null;
  /** The tool's output as recorded; null when it was not executed. */
  output: string | null;
  observationId: string | null;
  /** The tool result as the model read it next; null when no prompt copy holds it. */
  presented: string | null;
  /** The whole output, when the observation shows only part of it. */
  artifactId: string | null;
  truncated: boolean;
}

export interface VerdictView {
  seq: number;
  at: string;
  stepId: string | null;
  subject: "step" | "final_answer";
  attempt: number | null;
  decision: VerdictDecision;
  reasons: string[];
  feedback: string | null;
  checks: CheckResult[];
}

export interface UsageLine {
  /** A step id, or a role for calls outside any step (the planner, the evaluator of a final answer). */
  name: string;
  usage: Usage;
  modelCalls: number;
}

export interface UsageView {
  total: Usage;
  byStep: UsageLine[];
  byRole: UsageLine[];
  budget: RunBudget | null;
  /** What the controller counted against the budget. */
  spent: BudgetSpent | null;
  /** Models with no known price: their calls count $0. */
  unpriced: string[];
}

export interface EvidenceLink {
  id: string;
  /** The call that made the observation, when the trace shows it. */
  callKey: string | null;
  stepId: string | null;
  tool: string | null;
  summary: string | null;
  failed: boolean;
}

export interface ClaimView {
  text: string;
  status: ClaimStatus | "unchecked";
  evidence: EvidenceLink[];
}

export interface AnswerView {
  text: string | null;
  summary: string;
  partial: boolean;
  claims: ClaimView[];
  gaps: string[];
  /** What a partial run did not reach. */
  missing: string[];
}
