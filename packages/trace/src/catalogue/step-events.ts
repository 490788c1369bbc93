import { z } from "zod";
import { JsonObject, Scope, StepStatus } from "@rein/contracts";
import { RunStatus, CheckResult, ClaimCheck, VerdictDecision } from "@rein/contracts/run";
import { traceKinds } from "./trace-kind.ts";

// Budgets and packets are recorded as they were handed out, before any intake
// checked them: a refused packet must still leave a readable trace.
const budgetNumbers = z.record(z.string(), z.number());
const scopesByTool = z.record(z.string(), Scope);

/** A stale job dropped at intake (queues/job-intake.ts), never executed. */
const droppedJob = z.object({
  jobId: z.string(),
  attempt: z.number().int().nullable(),
  planNo: z.number().int().optional(),
  reason: z.string(),
});

const contextAnswer = z.object({
  evidence: z.array(z.string()),
  refusal: z.string().nullable(),
  requestingStepId: z.string(),
  parentStepId: z.string().nullable(),
});

/** A step's life: dispatch, suspension and resumption, delegation, its result and verdict. */
export const stepEvents = traceKinds({
  "step.dispatched": {
    summary: "A step's packet was sent to a worker.",
    emittedBy: "controller",
    payload: z.object({
      title: z.string(),
      attempt: z.number().int(),
      resume: z.number().int(),
      depth: z.number().int(),
      packetHash: z.string(),
      /** The whole packet body: what the worker could know, and what `rein replay --step` re-signs. */
      packet: JsonObject,
      tools: z.array(z.string()),
      scopes: scopesByTool,
      evidence: z.array(z.string()),
      feedback: z.string().nullable(),
    }),
  },
  "step.tools_withheld": {
    summary:
      "Tools the step's packet grants are not offered to its model, each with why: withheld by their source (an MCP tool that must run as a task) or not registered in this worker (a server that failed to start).",
    emittedBy: "worker",
    payload: z.object({ tools: z.array(z.object({ tool: z.string(), reason: z.string() })) }),
  },
  "step.tool_schemas": {
    summary:
      "Outside tools the step's model is offered whose description or input schema came from a relisting (an MCP server's list_changed or restart), or held text the presenter rewrote: each with its source, which listing, and the presenter's findings.",
    emittedBy: "worker",
    payload: z.object({
      tools: z.array(z.object({ tool: z.string(), source: z.string(), listing: z.number().int(), flags: z.array(z.string()) })),
    }),
  },
  "step.started": {
    summary:
      "A worker took the step's packet and started working; written with the step's result, just before step.finished (the calls the step makes are on the live channel meanwhile).",
    emittedBy: "controller",
    payload: z.object({ attempt: z.number().int() }),
  },
  "step.finished": {
    summary: "A worker reported the step's result.",
    emittedBy: "controller",
    payload: z.object({
      status: StepStatus,
      attempt: z.number().int(),
      turns: z.number().int(),
      observations: z.array(z.string()),
      error: z.string().nullable(),
    }),
  },
  "step.suspended": {
    summary: "The step waits: for an approval, or for the planner's answer to its question.",
    emittedBy: "controller",
    payload: z.object({
      reason: z.enum(["approval", "context"]),
      approvalId: z.string().optional(),
      tool: z.string().optional(),
      question: z.string().optional(),
    }),
  },
  "step.resumed": {
    summary: "A suspended step was dispatched again with the decision it waited for.",
    emittedBy: "controller",
    payload: z.object({ reason: z.literal("approval"), approvalId: z.string(), decision: z.string() }),
  },
  "step.redispatched": {
    summary:
      "A step whose job stalled past its limit (every worker holding it was lost) was dispatched again, to resume from its checkpoint.",
    emittedBy: "controller",
    payload: z.object({ reason: z.string(), redispatch: z.number().int().positive(), limit: z.number().int().nonnegative() }),
  },
  "step.errored": {
    summary: "A step could not run at all; the run fails.",
    emittedBy: "controller",
    payload: z.object({ reason: z.string() }),
  },
  "step.delegated": {
    summary: "A worker handed part of its task to a child step.",
    emittedBy: "controller",
    payload: z.object({
      childStepId: z.string(),
      reason: z.string(),
      title: z.string(),
      tools: z.array(z.string()),
      scopes: scopesByTool,
      budget: budgetNumbers,
      depth: z.number().int(),
    }),
  },
  "delegation.refused": {
    summary: "The controller refused to create a child step the worker asked for.",
    emittedBy: "controller",
    payload: z.object({ reason: z.string(), childTitle: z.string(), tools: z.array(z.string()) }),
  },
  "step.orphaned": {
    summary: "A child step finished but no parent waits for it.",
    emittedBy: "controller",
    payload: z.object({ reason: z.string() }),
  },
  "step.returned": {
    summary: "A child step's result went back to its parent.",
    emittedBy: "controller",
    payload: z.object({ childStepId: z.string(), status: z.string(), parentStepId: z.string() }),
  },
  "context.answered": {
    summary: "The planner answered a worker's question with evidence.",
    emittedBy: "controller",
    payload: contextAnswer,
  },
  "context.refused": {
    summary: "The planner declined a worker's question.",
    emittedBy: "controller",
    payload: contextAnswer,
  },
  "verdict.ready": {
    summary: "The evaluator's verdict over a step (or over the proposed final answer) was applied.",
    emittedBy: "controller",
    payload: z.object({
      decision: VerdictDecision,
      reasons: z.array(z.string()),
      feedback: z.string().nullable(),
      checks: z.array(CheckResult),
      claims: z.array(ClaimCheck).optional(),
      /** Set for a verdict over the planner's proposed answer, which belongs to no step. */
      subject: z.literal("final_answer").optional(),
      attempt: z.number().int().optional(),
    }),
  },
  "step.checkpoint_restored": {
    summary: "A worker picked a step up from its last checkpoint.",
    emittedBy: "worker",
    payload: z.object({ turns: z.number().int(), calls: z.number().int(), pending: z.number().int(), resume: z.string().nullable() }),
  },
  "step.cancelled": {
    summary:
      "The step's run ended (cancelled, failed, done or escalated) while a worker ran it: the worker aborted what was in flight and called nothing more; no result is sent and nothing is retried.",
    emittedBy: "worker",
    payload: z.object({
      attempt: z.number().int(),
      /** The run's status as announced; null when the step learned of the end from its refused turn write. */
      runStatus: RunStatus.nullable(),
      /** What the cancel cut off: a model call, a tool call (named in `tool`), or nothing (between calls). */
      cutOff: z.enum(["model_call", "tool_call", "nothing"]),
      tool: z.string().nullable(),
      turns: z.number().int(),
      calls: z.number().int(),
    }),
  },
  "packet.refused": {
    summary: "A worker refused a packet that failed its intake checks.",
    emittedBy: "worker",
    payload: z.object({ reason: z.string(), jobId: z.string() }),
  },
  "step.dropped": {
    summary: "A worker dropped a step job whose run ended, whose step moved on, or whose result was already applied.",
    emittedBy: "worker (job intake)",
    payload: droppedJob,
  },
  "plan.dropped": {
    summary: "A planner dropped a plan job the run no longer waits for.",
    emittedBy: "planner (job intake)",
    payload: droppedJob,
  },
  "context.dropped": {
    summary: "A planner dropped a context request the step no longer waits on.",
    emittedBy: "planner (job intake)",
    payload: droppedJob,
  },
  "evaluate.dropped": {
    summary: "An evaluator dropped an evaluate job whose verdict the run no longer waits for.",
    emittedBy: "evaluator (job intake)",
    payload: droppedJob,
  },
  "context.compacted": {
    summary: "Old tool results were dropped from a worker's context to fit its token budget.",
    emittedBy: "worker",
    payload: z.object({
      budgetTokens: z.number(),
      estimatedBefore: z.number(),
      estimatedAfter: z.number(),
      overBudget: z.boolean(),
      dropped: z.array(z.object({ toolCallId: z.string(), observationId: z.string().nullable(), tool: z.string(), tokens: z.number() })),
    }),
  },
});
