import { canonicalJson, hashOf } from "@rein/contracts";
import { decidePermission } from "@rein/guard";
import type { AnyTool } from "../../define-tool.ts";
import type { StepExecutionContext } from "../../tool-executor.ts";
import { type CallStage, need } from "../call-in-progress.ts";

/** The permission policy: the goal's rules, then the deployment's, then the defaults by effect. */
export const decidePolicy: CallStage = async (state) => {
  const tool = need(state, "tool");
  const { args } = need(state, "input");
  const scope = need(state, "scope");
  const decision = decidePermission(
    { tool: tool.name, effect: tool.effect, scope, argBytes: Buffer.byteLength(canonicalJson(args)), enumerates: tool.enumerates },
    { packet: state.context.policy, config: state.deps.config.policy },
    { forceAsk: forcedApproval(tool, args, state.context) },
  );
  await state.trace.emit("permission.decided", { ...decision, effect: tool.effect, scope }, { outputHash: hashOf(decision) });
  if (decision.decision === "deny") {
    return {
      status: "denied",
      trust: "runtime",
      failure: "different_action",
      message: `denied by ${decision.rule}`,
      content: `${tool.name} was not executed: the permission policy denies it (rule ${decision.rule}: ${decision.reason}). Choose a different action.`,
    };
  }
  state.decision = decision;
  return undefined;
};

function forcedApproval(tool: AnyTool, args: unknown, context: StepExecutionContext): string | undefined {
  if (tool.approval === "always") return `${tool.name} always needs a person's approval`;
  if (typeof tool.approval === "function" && tool.approval(args, { runId: context.runId, stepId: context.stepId })) {
    return `${tool.name} needs a person's approval for these arguments`;
  }
  return undefined;
}
