// What crosses a process or trust boundary, as zod schemas with same-named types,
// and the few primitives every package shares: the error family, canonical hashing, ids.
// This face holds what a goal becomes on its way to a worker; the rest is in the
// subpath faces: /run (a run as stored), /messages (the queues), /model (model
// conversations), /calls (tool calls as recorded).
export { errorMessage, ReinError } from "./errors.ts";
export { canonicalJson, hashOf, type Sha256, sha256 } from "./canonical-json.ts";
export { idFrom, newId } from "./ids.ts";
export { closestName } from "./closest-name.ts";
export { readJsonFile } from "./json-file.ts";
export { jsonSchemaOf } from "./json-schema-of.ts";
export { EnvName } from "./env-name.ts";
export { BuildId } from "./build-id.ts";
export { HashString } from "./hash-string.ts";
export { JsonObject } from "./json-object.ts";
export { Role } from "./role.ts";
export { addUsage, totalTokens, Usage, zeroUsage } from "./usage.ts";
export { BudgetSpent, RunBudget, StepBudget } from "./budget.ts";
export { Scope, ToolGrant } from "./scope.ts";
export { IgnoredRule, PermissionDecision, PermissionOutcome, PolicyRule, ToolEffect } from "./permission.ts";
export { Goal, type GoalInput, GoalKind } from "./goal.ts";
export { AcceptanceCriterion, Claim, FinalAnswer, JoinRule, ParallelSteps, Plan, SequentialPlan, StepSpec } from "./plan.ts";
export { HandoffPacket, LessonRef, PacketBody, ResumeInput } from "./handoff-packet.ts";
export { DelegationRequest, StepResult, StepStatus, Suspension, ToolCallRecord } from "./step-result.ts";
