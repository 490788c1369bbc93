import { hashOf } from "../index.ts";

const hash = hashOf("example");
const ts = "2026-11-30T00:00:00.000Z";

export const observation = {
  id: "obs_1",
  callId: "call_0_0",
  tool: "read_file",
  status: "ok",
  content: "export function add(a, b) { return a - b; }",
  empty: false,
  flags: [],
  provenance: { tool: "read_file", argsHash: hash, observedAt: ts, cacheHit: false, replayed: false, trust: "tool" },
};

export const stepSpec = {
  title: "Fix add()",
  objective: "Change src/add.js so that add returns the sum of its arguments",
  acceptance_criteria: [{ kind: "command", description: "tests pass", argv: ["node", "--test"], expectExitCode: 0 }],
  tools: ["read_file"],
  evidence_ids: [],
  output_contract: { description: "what changed", format: "text" },
  budget: { maxTurns: 6 },
};

export const goal = { schemaVersion: 1, text: "Fix the failing test", tools: [{ name: "read_file", scope: { paths: ["src/**"] } }] };

export const packetBody = {
  schemaVersion: 1,
  runId: "run_1",
  stepId: "s1",
  attempt: 1,
  parentStepId: null,
  depth: 0,
  task: { title: "Fix add()", objective: stepSpec.objective, acceptanceCriteria: [], outputContract: { description: "x", format: "text" } },
  evidence: [{ id: "obs_1", summary: "read_file: export function add" }],
  lessons: [],
  surface: [{ name: "read_file", scope: {} }],
  policy: [],
  budget: { maxTurns: 6, maxToolCalls: 10, maxTokens: 1000, maxMs: 60000 },
  modelRole: "worker",
  bounds: { surface: [{ name: "read_file", scope: {} }], budget: { maxTurns: 6, maxToolCalls: 10, maxTokens: 1000, maxMs: 60000 } },
  issuedAt: ts,
  expiresAt: "2026-11-30T01:00:00.000Z",
};

export const stepResult = {
  schemaVersion: 1,
  runId: "run_1",
  stepId: "s1",
  attempt: 1,
  status: "completed",
  output: "fixed",
  summary: "fixed",
  claims: [],
  observations: [observation],
  toolCalls: [
    {
      index: 0,
      name: "read_file",
      argsHash: hash,
      fingerprint: hash,
      status: "ok",
      resultHash: hash,
      observationId: "obs_1",
      addressed: true,
    },
  ],
  fingerprints: [hash],
  usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 },
  turns: 2,
};

export const verdict = {
  schemaVersion: 1,
  runId: "run_1",
  stepId: "s1",
  attempt: 1,
  decision: "continue",
  reasons: ["tests pass"],
  checks: [],
};

export const approval = {
  schemaVersion: 1,
  approvalId: "apr_1",
  runId: "run_1",
  stepId: "s1",
  tool: "restart_service",
  args: { service: "payment-api" },
  scope: { services: ["payment-api"] },
  actionHash: hash,
  status: "pending",
  createdAt: ts,
  expiresAt: "2026-12-01T00:00:00.000Z",
};

export const traceEvent = {
  schemaVersion: 1,
  seq: 1,
  ts,
  runId: "run_1",
  stepId: null,
  parentStepId: null,
  kind: "run.submitted",
  payload: { goal: "x" },
};
