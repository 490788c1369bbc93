import { ReinError } from "@rein/contracts";
import { APPROVAL_SCHEMA_VERSION } from "@rein/contracts/run";
import { decisionProblem } from "@rein/signing";
import { ApprovalStore } from "@rein/runtime";
import { approvalKeys, requireSigner } from "../approvals/approval-keys.ts";
import { type ApprovalDesk, decideApproval } from "../approvals/decide-approval.ts";
import { contextFlags, openContext } from "./cli-context.ts";
import type { CommandHandler, FlagValues, GLOBAL_FLAGS } from "./command-spec.ts";
import type { APPROVALS, APPROVE, DENY } from "./command-specs.ts";
import { out } from "./output.ts";

const approver = () => `cli:${process.env.USER ?? "user"}`;

async function withApprovals(
  flags: FlagValues<typeof GLOBAL_FLAGS>,
  body: (context: Awaited<ReturnType<typeof openContext>>, approvals: ApprovalStore) => Promise<number>,
) {
  const context = await openContext({ ...contextFlags(flags) });
  try {
    const approvals = new ApprovalStore(context.runtime.redis, context.runtime.keys, { ttlSeconds: context.config.approvals.ttlSeconds });
    return await body(context, approvals);
  } finally {
    await context.close();
  }
}

/** Deciding signs with the approval private key, so only a process holding it can approve. */
function deskOf(context: Awaited<ReturnType<typeof openContext>>, store: ApprovalStore): ApprovalDesk {
  return { store, signer: requireSigner(approvalKeys(context.config), context.config) };
}

export const approvalsCommand: CommandHandler<typeof APPROVALS> = (_args, flags) =>
  withApprovals(flags, async (context, approvals) => {
    const list = await approvals.list({ runId: flags.run, ...(flags.all ? {} : { status: "pending" }) });
    if (list.length === 0) out(flags.all ? "no approvals" : "no approvals waiting");
    const { verifier } = approvalKeys(context.config);
    for (const approval of list) {
      const problem =
        verifier && approval.status !== "pending" && approval.status !== "expired" ? decisionProblem(verifier, approval) : undefined;
      if (problem && approval.schemaVersion < APPROVAL_SCHEMA_VERSION)
        out(`${approval.approvalId}  NOT HONOURED: ${problem}; its call asks again`);
      else if (problem) out(`${approval.approvalId}  FORGED: not a signed decision (${problem}); step workers refuse it`);
      out(
        `${approval.approvalId}  ${approval.status.padEnd(8)} run ${approval.runId} step ${approval.stepId}  ${approval.tool}(${JSON.stringify(approval.args)})  expires ${approval.expiresAt}`,
      );
      if (approval.approver)
        out(
          `    decided by ${approval.approver} at ${approval.decidedAt}${approval.reason ? `: ${approval.reason}` : ""}${approval.note ? ` (${approval.note})` : ""}`,
        );
    }
    return 0;
  });

export const approveCommand: CommandHandler<typeof APPROVE> = ({ approvalId }, flags) =>
  withApprovals(flags, async (context, approvals) => {
    const approval = await decideApproval(context.runtime, deskOf(context, approvals), approvalId, {
      decision: "approved",
      approver: approver(),
      note: flags.note,
    });
    out(`approved ${approval.approvalId}: ${approval.tool}(${JSON.stringify(approval.args)}) may run once`);
    return 0;
  });

export const denyCommand: CommandHandler<typeof DENY> = ({ approvalId }, flags) =>
  withApprovals(flags, async (context, approvals) => {
    const reason = flags.reason;
    if (!reason)
      throw new ReinError("approval_invalid", 'expected --reason "why": the model is told why; rein deny <approvalId> --reason "why"');
    const approval = await decideApproval(context.runtime, deskOf(context, approvals), approvalId, {
      decision: "denied",
      approver: approver(),
      reason,
    });
    out(`denied ${approval.approvalId}: ${approval.tool}`);
    return 0;
  });
