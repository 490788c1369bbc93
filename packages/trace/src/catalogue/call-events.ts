import { z } from "zod";
import { IgnoredRule, PermissionOutcome, ToolEffect, Scope } from "@rein/contracts";
import { FailureClass, Provenance, ToolCallStatus } from "@rein/contracts/calls";
import { traceKinds } from "./trace-kind.ts";

/** Every call event carries these (tools/executor/call-trace.ts adds them), so a call's trail reads without joins. */
export const CALL_FIELDS = ["callId", "tool", "index"] as const;

const callEvent = <Shape extends z.ZodRawShape>(shape: Shape) =>
  z.object({ callId: z.string(), tool: z.string(), index: z.number().int(), ...shape });

const approvalFields = { approvalId: z.string(), actionHash: z.string(), status: z.string(), rule: z.string() };

const truncation = z.object({
  shownLines: z.number().int(),
  totalLines: z.number().int(),
  shownBytes: z.number().int(),
  totalBytes: z.number().int(),
  artifactId: z.string(),
});

/**
 * One tool call through the executor's stages (ARCHITECTURE §5). The
 * evaluator's checks run through the same executor and record the same
 * events under `check.` (see trace-catalogue.ts).
 */
export const callEvents = traceKinds({
  "tool.called": {
    summary: "A model asked for a tool call; `inputHash` is the arguments' hash.",
    emittedBy: "executor",
    payload: callEvent({
      idempotencyKey: z.string(),
      argBytes: z.number().int(),
      /** Left out when larger than 4 KiB; the hash is kept. */
      args: z.unknown().optional(),
      /** Why the call was cut off, when it was. */
      incomplete: z.string().optional(),
    }),
  },
  "tool.refused": {
    summary: "The call was not executed: cut off, not on the step's surface, or outside its grant or workspace.",
    emittedBy: "executor",
    payload: callEvent({
      reason: z.string(),
      detail: z.string().optional(),
      allowed: z.array(z.string()).optional(),
      error: z.string().optional(),
      outside: z.array(z.object({ dimension: z.string(), values: z.array(z.string()) })).optional(),
    }),
  },
  "tool.input_invalid": {
    summary: "The call's arguments broke the tool's input schema; it was not executed.",
    emittedBy: "executor",
    payload: callEvent({
      reason: z.string(),
      issues: z.array(z.object({ path: z.array(z.string()), code: z.string(), message: z.string() })).optional(),
      error: z.string().optional(),
    }),
  },
  "permission.decided": {
    summary: "The permission policy decided allow, deny or ask, and which rule decided.",
    emittedBy: "executor",
    payload: callEvent({
      decision: PermissionOutcome,
      rule: z.string(),
      reason: z.string(),
      ignored: IgnoredRule.optional(),
      effect: ToolEffect,
      scope: Scope,
    }),
  },
  "approval.unavailable": {
    summary: "The policy asked for approval but no approval desk is configured; the call is denied.",
    emittedBy: "executor",
    payload: callEvent({ rule: z.string() }),
  },
  "approval.forged": {
    summary: "A stored approval failed its signature or action check; the call is denied.",
    emittedBy: "executor",
    payload: callEvent({ ...approvalFields, problem: z.string() }),
  },
  "approval.refused": {
    summary: "The approval was denied or expired; the call is not executed.",
    emittedBy: "executor",
    payload: callEvent({ ...approvalFields, approver: z.string().nullable(), reason: z.string().nullable() }),
  },
  "approval.requested": {
    summary: "The call waits for a person's approval; the step suspends.",
    emittedBy: "executor",
    payload: callEvent({ ...approvalFields, expiresAt: z.string() }),
  },
  "approval.reused": {
    summary: "The call still waits for an approval requested earlier for the same action.",
    emittedBy: "executor",
    payload: callEvent({ ...approvalFields, expiresAt: z.string() }),
  },
  "approval.consumed": {
    summary: "A granted approval was used up by this call.",
    emittedBy: "executor",
    payload: callEvent({ ...approvalFields, approver: z.string().nullable() }),
  },
  "tool.budget_exhausted": {
    summary: "The step has no tool calls or time left; the call is not executed.",
    emittedBy: "executor",
    payload: callEvent({ reason: z.string(), callsSoFar: z.number().int(), maxToolCalls: z.number() }),
  },
  "tool.replayed": {
    summary: "The call already ran under the same idempotency key; its recorded result (or failure, with its `status`) is used.",
    emittedBy: "executor",
    payload: callEvent({ idempotencyKey: z.string(), observedAt: z.string(), status: ToolCallStatus.optional() }),
  },
  "tool.outcome_unknown": {
    summary: "A non-idempotent call started earlier under this key never recorded how it ended; it is not run again.",
    emittedBy: "executor",
    payload: callEvent({ idempotencyKey: z.string(), startedAt: z.string(), actionHash: z.string(), action: z.string() }),
  },
  "tool.repeated": {
    summary:
      "A non-idempotent call started earlier under this key never recorded how it ended, and a deployment rule (config `tools.repeatSafe`) declares it safe to repeat: it runs again instead of being reported outcome unknown.",
    emittedBy: "executor",
    payload: callEvent({
      idempotencyKey: z.string(),
      startedAt: z.string(),
      actionHash: z.string(),
      action: z.string(),
      /** The rule that covers the call, as config names it: `tools.repeatSafe[0]`. */
      rule: z.string(),
    }),
  },
  "tool.interrupted": {
    summary:
      "The step was given back (re-issued later) or its run ended (never re-issued) while this call started or ran; the call was aborted and ends without an observation.",
    emittedBy: "executor",
    payload: callEvent({ idempotencyKey: z.string(), intent: z.boolean() }),
  },
  "tool.cache_hit": {
    summary: "An idempotent read was answered from the run's cache.",
    emittedBy: "executor",
    payload: callEvent({ observedAt: z.string() }),
  },
  "secret.refused": {
    summary: "A tool asked for a secret not bound to it or to the destination host; nothing was sent.",
    emittedBy: "executor",
    payload: callEvent({ secret: z.string(), reason: z.string(), destination: z.string().optional() }),
  },
  "tool.executed": {
    summary: "The tool ran; `durationMs` is its time. A tool's `traceFields` add scalar fields.",
    emittedBy: "executor",
    payload: callEvent({
      status: ToolCallStatus,
      attempts: z.number().int(),
      failure: FailureClass.optional(),
      error: z.string().optional(),
      empty: z.boolean().optional(),
      output: z.unknown().optional(),
    }).catchall(z.unknown()),
  },
  "tool.progress": {
    summary:
      "A running call reported progress (an MCP server's `notifications/progress`). Throttled: the first report, then at most one a second and 100 a call; `skipped` counts the reports left out since the previous event.",
    emittedBy: "executor",
    payload: callEvent({
      progress: z.number(),
      total: z.number().optional(),
      /** The tool's own words, redacted and cut to 200 characters. */
      message: z.string().optional(),
      skipped: z.number().int(),
    }),
  },
  "tool.output_invalid": {
    summary: "The tool's output broke its output schema; it is not passed on.",
    emittedBy: "executor",
    payload: callEvent({ issues: z.string() }),
  },
  "observation.truncated": {
    summary: "The observation shows part of a long result; the whole is an artifact.",
    emittedBy: "executor",
    payload: callEvent(truncation.shape),
  },
  "observation.flagged": {
    summary: "The sanitizer flagged the result (instructions, secrets, markup).",
    emittedBy: "executor",
    payload: callEvent({ flags: z.array(z.string()) }),
  },
  "tool.result": {
    summary: "How the call ended, as the runtime saw it.",
    emittedBy: "executor",
    payload: callEvent({
      name: z.string(),
      status: ToolCallStatus,
      durationMs: z.number(),
      rawOutputHash: z.string().optional(),
      artifactId: z.string().optional(),
      failure: FailureClass.optional(),
      message: z.string().optional(),
      attempts: z.number().int(),
    }),
  },
  "observation.made": {
    summary: "The observation the model sees next; `outputHash` covers its content.",
    emittedBy: "executor",
    payload: callEvent({
      observationId: z.string(),
      status: ToolCallStatus,
      flags: z.array(z.string()),
      empty: z.boolean(),
      truncated: truncation.nullable(),
      provenance: Provenance,
      contentBytes: z.number().int(),
      /** Images shown to the model with the content (each also stored as an artifact). */
      images: z.array(z.object({ mediaType: z.string(), bytes: z.number().int() })).optional(),
    }),
  },
});
