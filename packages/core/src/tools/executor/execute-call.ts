import { passApprovalGate } from "../../approvals/approval-gate.ts";
import { actionHashOf } from "../../approvals/action-hash.ts";
import { canonicalJson, hashOf, sha256 } from "../../canonical/canonical-json.ts";
import type { Provenance, Scope } from "../../contracts/index.ts";
import { errorMessage, ReinError } from "../../errors.ts";
import { decidePermission } from "../../policy/permission-policy.ts";
import { resourcesOutside } from "../../policy/resource-match.ts";
import type { ResolvedExecutorDeps } from "../tool-executor-deps.ts";
import type { SecretRefusal } from "../../secrets/secret-bindings.ts";
import type { AnyTool, SecretReader, ToolContext } from "../define-tool.ts";
import type { RecordedResult } from "../recorded-result.ts";
import type { ModelToolCall, StepExecutionContext, ToolCallOutcome } from "../tool-executor.ts";
import { budgetExhausted } from "./budget-check.ts";
import { type CallEnding, type CallIdentity, endCall } from "./call-ending.ts";
import { normalizeScope } from "./call-scope.ts";
import { CallTrace } from "./call-trace.ts";
import { describeIssues } from "./describe-issues.ts";
import { isEmptyResult } from "./empty-result.ts";
import { presentResult } from "./present-result.ts";
import { runTool } from "./run-tool.ts";

// Arguments larger than this are left out of trace payloads (their hash is kept).
const TRACE_ARGS_LIMIT = 4096;
// The error as the result event and the logs state it: already redacted, cut for brevity.
const ERROR_MESSAGE_CHARS = 500;

/** One call through every stage of ARCHITECTURE §5, in order. Each stage that ends the call says why. */
export async function executeCall(
  deps: ResolvedExecutorDeps,
  call: ModelToolCall,
  index: number,
  context: StepExecutionContext,
): Promise<ToolCallOutcome> {
  const identity: CallIdentity = {
    callId: call.id,
    tool: call.name,
    index,
    argsHash: safeHash(call.input),
    fingerprint: safeHash({ tool: call.name, args: call.input }),
  };
  const trace = new CallTrace(
    context.trace ?? deps.trace,
    { runId: context.runId, stepId: context.stepId, parentStepId: context.parentStepId, ...identity },
    deps.redactor ? (payload) => deps.redactor?.redactValue(payload) ?? payload : undefined,
  );
  const end = (ending: CallEnding) => endCall(identity, ending, trace, deps.now);
  const refuse = async (kind: string, reason: string, content: string, payload: Record<string, unknown> = {}) => {
    await trace.emit(kind, { reason, ...payload });
    return end({ status: kind === "tool.input_invalid" ? "invalid_input" : "refused", content, trust: "runtime", failure: "different_action", message: reason });
  };
  const idempotencyKey = `${context.runId}:${context.stepId}:${context.attempt}:${index}`;
  const argsJson = safeJson(call.input);
  await trace.emit("tool.called", {
    idempotencyKey,
    argBytes: Buffer.byteLength(argsJson),
    args: argsJson.length <= TRACE_ARGS_LIMIT ? call.input : undefined,
    incomplete: call.incomplete ? call.incomplete.reason : undefined,
  });

  // 1. A cut-off call is never run: its arguments are not what the model meant.
  if (call.incomplete) {
    await trace.emit("tool.refused", { reason: "cut_off", detail: call.incomplete.reason });
    return end({
      status: "cut_off",
      trust: "runtime",
      failure: "different_action",
      message: `cut off: ${call.incomplete.reason}`,
      content: `Your output was cut off before the call to ${quoteName(call.name)} was complete (${call.incomplete.reason}), so it was not executed. If you still need it, re-issue the call with complete arguments.`,
    });
  }

  // 2. Surface: only tools the packet grants exist for this step.
  const grant = context.surface.find((candidate) => candidate.name === call.name);
  const tool = grant ? deps.registry.get(grant.name) : undefined;
  if (!grant || !tool) {
    const allowed = context.surface.map((candidate) => candidate.name).filter((name) => deps.registry.has(name)).sort();
    return refuse(
      "tool.refused",
      "not_on_surface",
      `The tool ${quoteName(call.name)} is not available in this step, so the call was not executed. Available tools: ${allowed.length > 0 ? allowed.join(", ") : "(none)"}.`,
      { allowed },
    );
  }

  // 3. Input validation against the tool's own schema.
  const parsed = tool.input.safeParse(call.input);
  if (!parsed.success) {
    const issues = describeIssues(parsed.error, call.input);
    return refuse(
      "tool.input_invalid",
      "invalid_input",
      `The arguments for ${tool.name} are invalid, so the call was not executed:\n${issues}\nCorrect these fields and call again.`,
      { issues: parsed.error.issues.map((issue) => ({ path: issue.path.map(String), code: issue.code, message: issue.message })) },
    );
  }
  const args: unknown = parsed.data;

  // 4. Scope: what the call touches, confined to the workspace and within the grant.
  let scope: Scope;
  try {
    scope = await normalizeScope(tool.scope(args), context.workspace);
  } catch (error) {
    if (!ReinError.isInstance(error)) throw error;
    if (error.details.invalidInput === true) {
      return refuse(
        "tool.input_invalid",
        "invalid_input",
        `The arguments for ${tool.name} are invalid, so the call was not executed: ${error.message}. Correct them and call again.`,
        { error: error.message },
      );
    }
    return refuse("tool.refused", "workspace_violation", `${tool.name} was not executed: ${error.message}.`, { error: error.message });
  }
  const outside = resourcesOutside(scope, grant.scope);
  if (outside.length > 0) {
    const listing = outside.map(({ dimension, values }) => `${dimension} ${values.join(", ")} (allowed: ${(grant.scope[dimension] ?? []).join(", ") || "none"})`);
    return refuse("tool.refused", "outside_grant", `${tool.name} was not executed: this step may not touch ${listing.join("; ")}.`, { outside });
  }

  // 5. Permission policy.
  const argBytes = Buffer.byteLength(canonicalJson(args));
  const decision = decidePermission(
    { tool: tool.name, effect: tool.effect, scope, argBytes },
    { packet: context.policy, config: deps.config.policy },
    { forceAsk: forcedApproval(tool, args, context) },
  );
  await trace.emit("permission.decided", { ...decision, effect: tool.effect, scope }, { outputHash: hashOf(decision) });
  if (decision.decision === "deny") {
    return end({
      status: "denied",
      trust: "runtime",
      failure: "different_action",
      message: `denied by ${decision.rule}`,
      content: `${tool.name} was not executed: the permission policy denies it (rule ${decision.rule}: ${decision.reason}). Choose a different action.`,
    });
  }

  // A non-idempotent call that already ran under this key is replayed, not
  // re-performed, and not re-approved: its approval was consumed when it ran.
  const recorded = !tool.idempotent && deps.idempotency ? await deps.idempotency.get(idempotencyKey) : undefined;
  const replay = recorded?.fingerprint === identity.fingerprint ? recorded : undefined;

  // 6. Approval gate.
  if (decision.decision === "ask" && !replay) {
    if (!deps.approvals || !deps.approvalVerifier) {
      await trace.emit("approval.unavailable", { rule: decision.rule });
      return end({
        status: "denied",
        trust: "runtime",
        failure: "different_action",
        message: "approval needed but no approval store",
        content: `${tool.name} was not executed: it needs a person's approval (${decision.reason}) and this deployment has no way to ask for one.`,
      });
    }
    const action = { tool: tool.name, args, scope };
    const gate = await passApprovalGate({ store: deps.approvals, verifier: deps.approvalVerifier, now: deps.now }, context.runId, context.stepId, action);
    const { approval } = gate;
    const approvalPayload = { approvalId: approval.approvalId, actionHash: approval.actionHash, status: approval.status, rule: decision.rule };
    if (gate.kind === "forged") {
      // Its approver, reason and note are whatever was written into Redis: none of it reaches the model.
      await trace.emit("approval.forged", { ...approvalPayload, problem: gate.problem });
      return end({
        status: "denied",
        trust: "runtime",
        failure: "different_action",
        message: `approval ${approval.approvalId} failed verification: ${gate.problem}`,
        content: `${tool.name} was not executed: it is not approved. The record of approval ${approval.approvalId} is not a decision a person's client signed, so the runtime ignored it. Do not retry this exact action; choose a different one or report that it was not approved.`,
      });
    }
    if (gate.kind === "refused") {
      await trace.emit("approval.refused", { ...approvalPayload, approver: approval.approver ?? null, reason: approval.reason ?? null });
      const expiry = approval.decidedAt ? `the approval expired at ${approval.expiresAt}, before the action ran` : "the approval request expired before anyone decided";
      const why = approval.status === "expired" ? expiry : `${approval.approver ?? "a person"} denied it${approval.reason ? `: ${approval.reason}` : ""}`;
      return end({
        status: "denied",
        trust: "runtime",
        failure: "different_action",
        message: `approval ${approval.approvalId} ${approval.status}`,
        content: `${tool.name} was not executed: ${why} (approval ${approval.approvalId}). Do not retry this exact action; choose a different one or report that it was refused.`,
      });
    }
    if (gate.kind === "suspend") {
      await trace.emit(gate.reused ? "approval.reused" : "approval.requested", { ...approvalPayload, expiresAt: approval.expiresAt });
      return end({
        status: "pending_approval",
        trust: "runtime",
        message: `waiting for approval ${approval.approvalId}`,
        content: `${tool.name} needs a person's approval before it can run (${decision.reason}). Approval ${approval.approvalId} has been requested; the step pauses until someone decides. Nothing you write can approve it.`,
        suspend: { kind: "approval", approvalId: approval.approvalId, tool: tool.name },
      });
    }
    await trace.emit("approval.consumed", { ...approvalPayload, approver: approval.approver ?? null, actionHash: actionHashOf(action) });
  }

  // 7. Budget.
  const exhausted = budgetExhausted(context, deps.now());
  if (exhausted) {
    await trace.emit("tool.budget_exhausted", { reason: exhausted, callsSoFar: context.callsSoFar, maxToolCalls: context.budget.maxToolCalls });
    return end({
      status: "budget_exhausted",
      trust: "runtime",
      failure: "fatal",
      message: exhausted,
      content: `${tool.name} was not executed: ${exhausted}. Finish the step with what you have.`,
    });
  }

  // 8. Execute (or replay, or serve from the run's read cache).
  const trust: Provenance["trust"] = tool.trust ?? (tool.effect === "external" ? "external" : "tool");
  const cacheable = tool.effect === "read" && tool.idempotent && deps.cache !== undefined;
  let result: RecordedResult | undefined = replay;
  let durationMs = 0;
  let attempts = 1;
  let source: "executed" | "replayed" | "cache" = replay ? "replayed" : "executed";
  if (replay) await trace.emit("tool.replayed", { idempotencyKey, observedAt: replay.observedAt }, { outputHash: replay.rawOutputHash });
  if (!result && cacheable) {
    result = await deps.cache?.get(context.runId, identity.fingerprint);
    if (result) {
      source = "cache";
      await trace.emit("tool.cache_hit", { observedAt: result.observedAt }, { outputHash: result.rawOutputHash });
    }
  }
  if (!result) {
    const secretRefusals: SecretRefusal[] = [];
    const secrets = deps.secrets.readerFor(tool.name, (refusal) => secretRefusals.push(refusal));
    const run = await runTool(tool, args, (signal) => toolContext(deps, context, { callId: call.id, idempotencyKey, signal, secrets }), {
      signal: context.signal,
      retry: deps.retry,
    });
    durationMs = run.durationMs;
    attempts = run.attempts;
    for (const refusal of secretRefusals) await trace.emit("secret.refused", { ...refusal });
    if (!run.ok && secretRefusals.length > 0) {
      // Refused before anything left the process: a refusal, not a failure of the tool.
      const message = errorMessage(run.error);
      await trace.emit("tool.executed", { status: "refused", failure: "different_action", attempts, error: message }, { durationMs });
      return end({
        status: "refused",
        trust: "runtime",
        failure: "different_action",
        message,
        durationMs,
        attempts,
        content: `${tool.name} was refused: ${message}. A secret goes only to the tools and hosts the deployment binds it to; choose a different action.`,
      });
    }
    // Whatever a non-read tool did, earlier reads in this run may now be stale.
    if (tool.effect !== "read") await deps.cache?.invalidate(context.runId);
    if (!run.ok) {
      const status = run.timedOut ? "timeout" : "error";
      // An error carries upstream text (an HTTP body, an MCP server's message): it is presented like an output.
      const shown = await presentResult(errorMessage(run.error), {
        tool: tool.name,
        runId: context.runId,
        limits: deps.config.observations,
        artifacts: deps.artifacts,
        redactor: deps.redactor,
        failed: true,
      });
      const message = shown.shown.slice(0, ERROR_MESSAGE_CHARS);
      await trace.emit("tool.executed", { status, failure: run.failure, attempts, error: message }, { durationMs });
      if (shown.truncated) await trace.emit("observation.truncated", { ...shown.truncated });
      if (shown.flags.some((flag) => flag !== "truncated")) await trace.emit("observation.flagged", { flags: shown.flags });
      return end({
        status,
        trust,
        failure: run.failure,
        message,
        durationMs,
        attempts,
        flags: shown.flags,
        truncated: shown.truncated,
        artifactId: shown.artifactId,
        content: `${tool.name} failed${attempts > 1 ? ` after ${attempts} attempts` : ""}.\n${shown.content}\n${adviceFor(run.failure)}`,
      });
    }

    // 9. Output validation: a result that breaks the tool's contract is never passed on as valid.
    if (tool.output) {
      const checked = tool.output.safeParse(run.output);
      if (!checked.success) {
        const issues = describeIssues(checked.error, run.output, { showReceived: false });
        await trace.emit("tool.executed", { status: "invalid_output", attempts }, { durationMs, outputHash: safeHash(run.output) });
        await trace.emit("tool.output_invalid", { issues });
        return end({
          status: "invalid_output",
          trust: "runtime",
          failure: "different_action",
          message: "output broke the tool's schema",
          durationMs,
          attempts,
          content: `${tool.name} ran but returned a result that does not match its declared output schema, so the result is not shown:\n${issues}\nDo not rely on this call; use another way to get the information.`,
        });
      }
    }
    const rendered = tool.render(run.output);
    result = {
      schemaVersion: 1,
      fingerprint: identity.fingerprint,
      rendered,
      rawOutputHash: sha256(rendered),
      empty: isEmptyResult(run.output, rendered),
      observedAt: new Date(deps.now()).toISOString(),
    };
    // The rendered output itself, so replay can diff against it; a larger one is in the truncation artifact.
    const output = Buffer.byteLength(rendered) <= deps.config.observations.maxBytes ? rendered : undefined;
    await trace.emit("tool.executed", { status: "ok", attempts, empty: result.empty, output, ...tool.traceFields?.(run.output) }, { durationMs, outputHash: result.rawOutputHash });
    if (!tool.idempotent && deps.idempotency) {
      const outcome = await deps.idempotency.record(idempotencyKey, result);
      // Another run of this step recorded first: its result is the one that counts.
      if (!outcome.recorded && outcome.existing?.fingerprint === identity.fingerprint) {
        result = outcome.existing;
        source = "replayed";
      }
    }
    if (cacheable && source === "executed") await deps.cache?.put(context.runId, result);
  }

  // 10-13. Empty marker, size limit, sanitization, provenance.
  const base = {
    status: "ok" as const,
    trust,
    durationMs,
    attempts,
    rawOutputHash: result.rawOutputHash,
    observedAt: result.observedAt,
    cacheHit: source === "cache",
    replayed: source === "replayed",
  };
  if (result.empty) {
    return end({ ...base, empty: true, content: `${tool.name} returned nothing: its result was empty.` });
  }
  const presented = await presentResult(result.rendered, {
    tool: tool.name,
    runId: context.runId,
    limits: deps.config.observations,
    artifacts: deps.artifacts,
    redactor: deps.redactor,
  });
  if (presented.truncated) await trace.emit("observation.truncated", { ...presented.truncated });
  if (presented.flags.some((flag) => flag !== "truncated")) await trace.emit("observation.flagged", { flags: presented.flags });
  return end({ ...base, content: presented.content, flags: presented.flags, truncated: presented.truncated, artifactId: presented.artifactId });
}

function toolContext(
  deps: ResolvedExecutorDeps,
  context: StepExecutionContext,
  call: { callId: string; idempotencyKey: string; signal: AbortSignal; secrets: SecretReader },
): ToolContext {
  const { callId } = call;
  return {
    runId: context.runId,
    stepId: context.stepId,
    callId,
    idempotencyKey: call.idempotencyKey,
    signal: call.signal,
    workspace: context.workspace,
    secrets: call.secrets,
    artifacts: deps.artifacts,
    logger: deps.logger.child({ runId: context.runId, stepId: context.stepId, callId }),
  };
}

function forcedApproval(tool: AnyTool, args: unknown, context: StepExecutionContext): string | undefined {
  if (tool.approval === "always") return `${tool.name} always needs a person's approval`;
  if (typeof tool.approval === "function" && tool.approval(args, { runId: context.runId, stepId: context.stepId })) {
    return `${tool.name} needs a person's approval for these arguments`;
  }
  return undefined;
}

function adviceFor(failure: string): string {
  switch (failure) {
    case "retryable":
      return "This looks transient; the same call may work later.";
    case "different_action":
      return "Retrying the same call will fail the same way; change the arguments or choose another action.";
    default:
      return "This failure is not something a different call can fix; report it.";
  }
}

function quoteName(name: string): string {
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);
}

/** Model arguments are parsed JSON, but a provider bug must not crash the pipeline before it can refuse. */
function safeJson(value: unknown): string {
  try {
    return canonicalJson(value) ?? "null";
  } catch {
    return JSON.stringify(String(value));
  }
}

function safeHash(value: unknown) {
  return sha256(safeJson(value));
}
