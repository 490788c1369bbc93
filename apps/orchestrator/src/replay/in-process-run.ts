import { type GoalInput, ReinError } from "@rein/contracts";
import type { RunState } from "@rein/contracts/run";
import { ApprovalSigner, ApprovalVerifier, generateKeyPair, generatePacketKeys } from "@rein/signing";
import type { ModelProvider } from "@rein/models";
import type { ReinRuntime } from "@rein/runtime";
import type { AnyTool } from "@rein/tools";
import type { TypedTraceEvent } from "@rein/trace";
import { decideApproval } from "../approvals/decide-approval.ts";
import { submitGoal, ROLE_NAMES, startRoles, buildTooling } from "@rein/controller";

export interface PrivateRunOptions {
  goal: GoalInput;
  /** The directory the run works on (see `SubmitOptions.workspaceDir`). */
  workspaceDir?: string;
  /** Tools beyond the built-ins (an example's); one with a built-in's name replaces it. */
  tools?: readonly AnyTool[];
  /** Providers by role; missing ones come from the runtime's config. */
  providers?: Partial<Record<"planner" | "worker" | "judge", ModelProvider>>;
  /** Reuse a recorded run id, so idempotency keys and paths match the recording. */
  runId?: string;
  /** Answers a pending approval; without it (or when it answers nothing) a run that waits for one ends the wait as it stands. */
  decideApproval?: (
    approvalId: string,
    event: TypedTraceEvent,
  ) => { decision: "approved" | "denied"; approver: string; reason?: string } | undefined;
  /** A safety net, not a timing assertion. @defaultValue 120000 */
  timeoutMs?: number;
}

export interface PrivateRunResult {
  state: RunState;
  events: TypedTraceEvent[];
}

const ENDS = new Set(["run.done", "run.failed", "run.cancelled", "run.escalated"]);

/**
 * Starts every role in this process against `runtime`, submits the goal and
 * waits for the run to end (or to wait on a person), then stops the roles.
 * Eval and replay both drive runs through this, so they exercise the same
 * controller, planner, worker and evaluator as `rein run`.
 */
export async function runPrivately(runtime: ReinRuntime, options: PrivateRunOptions): Promise<PrivateRunResult> {
  // A private run decides its own approvals, so it holds a pair of its own for as long as it lasts.
  const approvalPair = generateKeyPair();
  const tooling = await buildTooling(runtime, options.tools ?? [], new ApprovalVerifier(approvalPair.publicKey));
  const { registry, executor, approvals } = tooling;
  const desk = { store: approvals, signer: new ApprovalSigner(approvalPair.privateKey) };
  const packetKeys = generatePacketKeys();
  const roles = startRoles(runtime, {
    roles: ROLE_NAMES,
    packetPrivateKey: packetKeys.privateKey,
    packetPublicKey: packetKeys.publicKey,
    executor,
    providers: options.providers,
  });
  const controller = new AbortController();
  const timeoutMs = options.timeoutMs ?? 120_000;
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const { runId } = await submitGoal(runtime, options.goal, {
      knownTools: registry.names(),
      runId: options.runId,
      workspaceDir: options.workspaceDir,
    });
    for await (const event of runtime.trace.follow(runId, controller.signal)) {
      if (ENDS.has(event.kind)) break;
      if (event.kind === "step.suspended" && typeof event.payload.approvalId === "string") {
        const answer = options.decideApproval?.(event.payload.approvalId, event);
        if (!answer) break;
        await decideApproval(runtime, desk, event.payload.approvalId, answer);
      }
    }
    if (controller.signal.aborted) throw new ReinError("budget_exhausted", `run ${runId} did not end within ${timeoutMs} ms`);
    return { state: await runtime.runs.require(runId), events: await runtime.trace.read(runId) };
  } finally {
    clearTimeout(timer);
    controller.abort();
    await roles.close();
    await tooling.close();
  }
}
