import type { Usage } from "@rein/contracts";
import type { RunState } from "@rein/contracts/run";
import type { TypedTraceEvent } from "@rein/trace";
import { describeGroupEvent } from "./group-lines.ts";
import { callKeyOf, clip, endReasonOf, failedExitOf, isRunEnd, list, shortHash, text } from "./event-fields.ts";

/**
 * The run for a person: plan, steps, model and tool calls with the decision
 * that let each through, verdicts, how it ended, and what it cost.
 */
export function renderTimeline(events: readonly TypedTraceEvent[], state: RunState | null = null): string {
  const lines: string[] = [];
  const start = events[0] ? Date.parse(events[0].ts) : 0;
  const calls = new Map<string, { args: string; decision: string; exit?: string }>();
  const groups = new Map<string, string>();
  const totals = { modelCalls: 0, toolCalls: 0, usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 } };
  if (state) {
    lines.push(`run ${state.runId}: ${state.status}${state.stopReason ? ` (${state.stopReason})` : ""}`);
    lines.push(`goal: ${state.goal.text}`);
  }
  for (const event of events) {
    const at = `${((Date.parse(event.ts) - start) / 1000).toFixed(3).padStart(8)}s`;
    const step = event.stepId ? `[${event.stepId}] ` : "";
    const say = (line: string) => lines.push(`${at}  ${step}${line}`);
    switch (event.kind) {
      case "run.submitted": {
        const { budget, tools } = event.payload;
        say(
          `submitted; tools granted: ${tools.join(", ") || "none"}; budget: ${text(budget.maxSteps)} steps, ${text(budget.maxTokens)} tokens, $${text(budget.maxCostUsd)}`,
        );
        break;
      }
      case "plan.ready": {
        const p = event.payload;
        say(
          p.done
            ? `plan ${text(p.planNo)}: proposes the goal is met`
            : `plan ${text(p.planNo)}: ${p.currentStep === null ? "steps side by side" : `"${text(p.currentStep)}"`}${list(p.nextSteps).length > 0 ? `; then ${list(p.nextSteps).join(" → ")}` : ""}${list(p.risks).length > 0 ? `; risks: ${list(p.risks).join("; ")}` : ""}`,
        );
        break;
      }
      case "group.started":
      case "group.joined":
      case "usage.counted": {
        // Members side by side, and at the join each child's state and spend against its slice (as `rein run` shows them).
        const [first, ...more] = (describeGroupEvent(event, groups) ?? "").split("\n");
        if (first) say(first.replace(/^[⑂⑃] /, ""));
        for (const line of more) lines.push(`${" ".repeat(11)}${line}`);
        break;
      }
      case "lesson.used":
        say(`lessons used: ${list(event.payload.lessons).join(", ") || "none"}`);
        break;
      case "step.dispatched": {
        const p = event.payload;
        say(
          `dispatched "${text(p.title)}" attempt ${text(p.attempt)}${Number(p.resume) > 0 ? ` resume ${text(p.resume)}` : ""}; tools: ${list(p.tools).join(", ") || "none"}${p.feedback ? `; feedback: ${text(p.feedback)}` : ""}`,
        );
        break;
      }
      case "model.responded": {
        const p = event.payload;
        totals.modelCalls += 1;
        addUsage(totals.usage, event.usage);
        const usage = event.usage;
        say(
          `model ${text(p.role)} ${text(p.provider)}/${text(p.model)} → ${text(p.stopReason)}` +
            `${usage ? `, ${usage.inputTokens}+${usage.outputTokens} tokens, $${usage.costUsd.toFixed(4)}` : ""}${event.durationMs !== undefined ? `, ${Math.round(event.durationMs)} ms` : ""}`,
        );
        break;
      }
      case "model.failed":
        say(`model ${text(event.payload.role)} ${event.payload.aborted ? "stopped" : "failed"}: ${text(event.payload.error)}`);
        break;
      case "model.output_invalid":
        say(`model ${text(event.payload.role)} output refused (attempt ${text(event.payload.attempt)}): ${text(event.payload.problem)}`);
        break;
      case "tool.called":
        calls.set(callKeyOf(event), {
          args: clip(text(event.payload.args ?? `(${text(event.payload.argBytes)} bytes)`), 100),
          decision: "",
        });
        break;
      case "permission.decided": {
        const call = calls.get(callKeyOf(event));
        if (call) call.decision = `${text(event.payload.decision)} by ${text(event.payload.rule)}`;
        break;
      }
      case "tool.executed": {
        // A command that ran but failed still ends "ok" as a call; its line says how it exited.
        const call = calls.get(callKeyOf(event));
        if (call) call.exit = failedExitOf(event.payload);
        break;
      }
      case "approval.requested":
      case "approval.consumed":
      case "approval.refused":
      case "approval.decided": {
        const p = event.payload;
        const approver = "approver" in p ? p.approver : null;
        const decision = "decision" in p ? p.decision : null;
        say(
          `approval ${text(p.approvalId)} ${event.kind.split(".")[1]}${approver ? ` by ${text(approver)}` : ""}${decision ? `: ${text(decision)}` : ""}`,
        );
        break;
      }
      case "approval.forged":
        say(`approval ${text(event.payload.approvalId)} FORGED (claimed ${text(event.payload.status)}): ${text(event.payload.problem)}`);
        break;
      case "tool.result": {
        const p = event.payload;
        totals.toolCalls += 1;
        const call = calls.get(callKeyOf(event));
        const status = p.status === "ok" && call?.exit ? call.exit : text(p.status);
        const outcome = `${status}${event.durationMs !== undefined ? ` ${event.durationMs.toFixed(1)} ms` : ""}${p.rawOutputHash ? ` ${shortHash(p.rawOutputHash)}` : ""}${p.message ? ` (${text(p.message)})` : ""}`;
        say(`  #${text(p.index)} ${text(p.name)}(${call?.args ?? ""}) ${call?.decision ? `[${call.decision}] ` : ""}→ ${outcome}`);
        break;
      }
      case "step.suspended": {
        const p = event.payload;
        say(`suspended: ${text(p.reason)}${p.approvalId ? ` (approval ${text(p.approvalId)})` : ""}`);
        break;
      }
      case "step.resumed":
        say(`resumed: ${text(event.payload.reason)} ${text(event.payload.decision, "")}`.trimEnd());
        break;
      case "step.finished": {
        const p = event.payload;
        say(`finished ${text(p.status)} after ${text(p.turns)} turn(s)${p.error ? `: ${text(p.error)}` : ""}`);
        break;
      }
      case "answer.proposed": {
        const p = event.payload;
        say(
          `the planner proposes a final answer (proposal ${text(p.attempt)}: ${text(p.claims)} claim(s), ${text(p.gaps)} gap(s)); the evaluator checks it`,
        );
        break;
      }
      case "verdict.ready": {
        const p = event.payload;
        say(
          `${p.subject === "final_answer" ? "verdict on the final answer" : "verdict"} ${text(p.decision)}: ${list(p.reasons).join("; ")}`,
        );
        for (const check of p.checks)
          lines.push(`${" ".repeat(13)}${check.passed ? "✓" : "✗"} ${text(check.check)}: ${text(check.detail)}`);
        break;
      }
      case "packet.refused":
      case "tool.refused":
        say(`${event.kind}: ${text(event.payload.reason)}`);
        break;
      case "loop.detected":
        say(`${event.kind}: ${text(event.payload.kind)}`);
        break;
      default:
        if (isRunEnd(event)) say(`${event.kind}: ${text(endReasonOf(event))}`);
    }
  }
  const { usage } = totals;
  lines.push(
    `totals: ${state ? `${state.spent.steps} step(s), ` : ""}${totals.modelCalls} model call(s), ${totals.toolCalls} tool call(s), ` +
      `${usage.inputTokens} input + ${usage.outputTokens} output tokens, $${usage.costUsd.toFixed(4)}`,
  );
  return `${lines.join("\n")}\n`;
}

function addUsage(into: { inputTokens: number; outputTokens: number; costUsd: number }, usage: Usage | undefined): void {
  if (!usage) return;
  into.inputTokens += usage.inputTokens;
  into.outputTokens += usage.outputTokens;
  into.costUsd += usage.costUsd;
}
