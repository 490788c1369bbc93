import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { Goal, HandoffPacket, hashOf, PacketBody, PermissionDecision, Plan, StepResult, StepSpec } from "../src/index.ts";
import { Observation, ToolResultEvent, ToolSpec } from "../src/faces/calls.ts";
import { ControlEvent, EvaluateJob } from "../src/faces/messages.ts";
import { Approval, RunState, TraceEvent, Verdict } from "../src/faces/run.ts";
import { ToolCallEvent } from "../src/tool-events.ts";
import * as example from "../src/testing/contract-examples.ts";

const hash = hashOf("x");

interface Case {
  schema: z.ZodType;
  valid: unknown;
  invalid: Record<string, unknown>;
}

const cases: Record<string, Case> = {
  Goal: {
    schema: Goal,
    valid: example.goal,
    invalid: {
      "empty text": { text: "   " },
      "text over the size limit": { text: "x".repeat(20_001) },
      "a tool grant without a name": { text: "do it", tools: [{ name: "" }] },
      "a negative step budget": { text: "do it", budget: { maxSteps: -1 } },
    },
  },
  StepSpec: {
    schema: StepSpec,
    valid: example.stepSpec,
    invalid: {
      "an objective too short to name an action": { ...example.stepSpec, objective: "fix" },
      "a command criterion without argv": { ...example.stepSpec, acceptance_criteria: [{ kind: "command", description: "x", argv: [] }] },
      "an unknown criterion kind": { ...example.stepSpec, acceptance_criteria: [{ kind: "vibes", description: "x" }] },
    },
  },
  Plan: {
    schema: Plan,
    valid: { current_step: example.stepSpec, next_steps: ["verify"], risks: [], done: false },
    invalid: {
      "not done and no current step": { current_step: null, done: false },
      "next_steps not a list": { current_step: example.stepSpec, next_steps: "verify" },
    },
  },
  EvaluateJob: {
    schema: EvaluateJob,
    valid: {
      kind: "final",
      runId: "run_1",
      stepId: "final",
      attempt: 1,
      answer: { answer: "fixed", claims: [{ text: "tests pass", evidence: ["obs_1"] }], gaps: [] },
      evidence: [{ id: "obs_1", stepId: "s1", tool: "run_command", status: "ok" }],
      goal: "Fix the failing test",
    },
    invalid: {
      "a final answer without the run's evidence": {
        kind: "final",
        runId: "run_1",
        stepId: "final",
        attempt: 1,
        answer: { answer: "fixed" },
        goal: "x",
      },
      "evidence with an unknown call status": {
        kind: "final",
        runId: "run_1",
        stepId: "final",
        attempt: 1,
        answer: { answer: "fixed" },
        evidence: [{ id: "obs_1", stepId: "s1", tool: "run_command", status: "fine" }],
        goal: "x",
      },
      "an unknown kind": { kind: "vibes", runId: "run_1", stepId: "s1", attempt: 1 },
    },
  },
  PacketBody: {
    schema: PacketBody,
    valid: example.packetBody,
    invalid: {
      "a model role other than worker": { ...example.packetBody, modelRole: "planner" },
      "a negative depth": { ...example.packetBody, depth: -1 },
    },
  },
  HandoffPacket: {
    schema: HandoffPacket,
    valid: { body: example.packetBody, contextHash: hash, signature: "c2ln" },
    invalid: {
      "no signature": { body: example.packetBody, contextHash: hash, signature: "" },
      "a hash without the sha256 prefix": { body: example.packetBody, contextHash: "abc", signature: "c2ln" },
    },
  },
  ToolSpec: {
    schema: ToolSpec,
    valid: {
      name: "read_file",
      description: "reads",
      effect: "read",
      inputSchema: { type: "object" },
      idempotent: true,
      concurrencySafe: true,
      timeoutMs: 1000,
      approval: "never",
    },
    invalid: {
      "a name with spaces": {
        name: "read file",
        description: "x",
        effect: "read",
        inputSchema: {},
        idempotent: true,
        concurrencySafe: true,
        timeoutMs: 1,
        approval: "never",
      },
      "an unknown effect": {
        name: "x",
        description: "x",
        effect: "explode",
        inputSchema: {},
        idempotent: true,
        concurrencySafe: true,
        timeoutMs: 1,
        approval: "never",
      },
    },
  },
  ToolCallEvent: {
    schema: ToolCallEvent,
    valid: { callId: "c", runId: "r", stepId: "s", index: 0, name: "read_file", args: {}, idempotencyKey: "r:s:0" },
    invalid: { "a negative index": { callId: "c", runId: "r", stepId: "s", index: -1, name: "x", args: {}, idempotencyKey: "k" } },
  },
  ToolResultEvent: {
    schema: ToolResultEvent,
    valid: { callId: "c", name: "read_file", status: "ok", durationMs: 3, rawOutputHash: hash },
    invalid: { "an unknown status": { callId: "c", name: "x", status: "great", durationMs: 1 } },
  },
  Observation: {
    schema: Observation,
    valid: example.observation,
    invalid: { "no provenance": { ...example.observation, provenance: undefined } },
  },
  PermissionDecision: {
    schema: PermissionDecision,
    valid: { decision: "ask", rule: "default:destructive", reason: "destructive tools ask" },
    invalid: { "an unknown decision": { decision: "maybe", rule: "r", reason: "x" } },
  },
  Approval: {
    schema: Approval,
    valid: example.approval,
    invalid: {
      "an unknown status": { ...example.approval, status: "sort-of" },
      "a malformed action hash": { ...example.approval, actionHash: "sha256:zz" },
    },
  },
  StepResult: {
    schema: StepResult,
    valid: example.stepResult,
    invalid: {
      "an unknown status": { ...example.stepResult, status: "meh" },
      "negative token usage": { ...example.stepResult, usage: { inputTokens: -1 } },
    },
  },
  Verdict: {
    schema: Verdict,
    valid: example.verdict,
    invalid: {
      "no reasons": { ...example.verdict, reasons: [] },
      "an unknown decision": { ...example.verdict, decision: "shrug" },
    },
  },
  TraceEvent: {
    schema: TraceEvent,
    valid: example.traceEvent,
    invalid: {
      "a kind that is not noun.action": { ...example.traceEvent, kind: "Submitted" },
      "seq zero": { ...example.traceEvent, seq: 0 },
    },
  },
  ControlEvent: {
    schema: ControlEvent,
    valid: { type: "run.cancel", eventId: "e1", runId: "run_1", reason: "no longer needed" },
    invalid: {
      "an unknown type": { type: "run.explode", eventId: "e1", runId: "run_1" },
      "a verdict event without its verdict": { type: "verdict.ready", eventId: "e", runId: "r", stepId: "s", attempt: 1 },
      "a failed plan with negative usage": {
        type: "plan.failed",
        eventId: "e",
        runId: "r",
        planNo: 1,
        reason: "x",
        usage: { inputTokens: -1 },
      },
      "an event.failed that does not name the event": { type: "event.failed", eventId: "e", runId: "r", reason: "x" },
    },
  },
};

describe("contracts", () => {
  for (const [name, { schema, valid, invalid }] of Object.entries(cases)) {
    describe(name, () => {
      it("accepts a valid example", () => {
        const parsed = schema.safeParse(valid);
        expect(parsed.error?.issues ?? []).toEqual([]);
      });
      for (const [label, value] of Object.entries(invalid)) {
        it(`rejects ${label}`, () => {
          expect(schema.safeParse(value).success).toBe(false);
        });
      }
    });
  }

  it("gives a goal the default budgets and an empty policy", () => {
    const goal = Goal.parse({ text: "do it" });
    expect(goal.budget.maxSteps).toBe(20);
    expect(goal.policy).toEqual([]);
    expect(goal.schemaVersion).toBe(1);
  });

  it("rejects a stored RunState of an unknown schema version", () => {
    expect(RunState.safeParse({ schemaVersion: 2 }).success).toBe(false);
  });
});

describe("EvaluateJob written before the job had a kind", () => {
  it("reads as a step job with no evidence statuses", () => {
    const job = EvaluateJob.parse({
      runId: "run_1",
      stepId: "s1",
      attempt: 1,
      spec: example.stepSpec,
      result: example.stepResult,
      knownEvidenceIds: ["obs_1"],
      priorFingerprints: [],
    });
    expect(job.kind).toBe("step");
    if (job.kind === "final") return;
    expect(job.evidence).toEqual([]);
  });
});
