import type { RunState, StepState } from "@rein/contracts/run";
import type { TypedTraceEvent } from "@rein/trace";

/** What progress remembers between events (progress.ts's ProgressMemory). */
type Memory = Map<string, string>;

interface Spent {
  costUsd: number;
  tokens: number;
}

/**
 * A parallel group's lines in `rein run` progress: its members side by side
 * with the join rule when it starts, and when it joins each child's state,
 * verdict and what it spent against its slice. Usage is remembered per step
 * as it is counted. Undefined for every other event.
 */
export function describeGroupEvent(event: TypedTraceEvent, memory: Memory): string | undefined {
  switch (event.kind) {
    case "group.started": {
      const p = event.payload;
      memory.set(`join:${p.groupId}`, joinText(p.join));
      p.stepIds.forEach((stepId, index) => {
        memory.set(`slice:${stepId}`, JSON.stringify(p.slices[index] ?? {}));
      });
      const of = p.parentStepId ? ` of ${p.parentStepId}` : "";
      return `⑂ group ${p.groupId}${of}: ${p.stepIds.join(" | ")} side by side, join ${joinText(p.join)}`;
    }
    case "usage.counted": {
      if (event.stepId) {
        const spent = spentOf(event.stepId, memory);
        const { usage } = event.payload;
        spent.costUsd += usage.costUsd;
        spent.tokens += usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
        memory.set(`spent:${event.stepId}`, JSON.stringify(spent));
      }
      return undefined;
    }
    case "group.joined": {
      const p = event.payload;
      const rule = memory.get(`join:${p.groupId}`);
      const states = p.inputs.map((input) => `${input.stepId} ${input.phase}${input.decision ? ` (${input.decision})` : ""}`);
      const width = Math.max(...states.map((state) => state.length));
      const lines = p.inputs.map((input, index) => `    ${(states[index] ?? "").padEnd(width)}  ${againstSlice(input.stepId, memory)}`);
      return [`⑃ group ${p.groupId} ${p.outcome}${rule ? ` (join ${rule})` : ""}:`, ...lines].join("\n");
    }
    default:
      return undefined;
  }
}

const joinText = (join: { rule: string; n?: number }): string => (join.rule === "quorum" ? `quorum ${join.n ?? 1}` : join.rule);

function spentOf(stepId: string, memory: Memory): Spent {
  const known = memory.get(`spent:${stepId}`);
  return known ? (JSON.parse(known) as Spent) : { costUsd: 0, tokens: 0 };
}

function againstSlice(stepId: string, memory: Memory): string {
  return spendText(spentOf(stepId, memory), JSON.parse(memory.get(`slice:${stepId}`) ?? "{}") as Slice);
}

interface Slice {
  maxCostUsd?: number;
  maxTokens?: number;
}

function spendText(spent: Spent, slice: Slice): string {
  const cost = `$${spent.costUsd.toFixed(4)}${slice.maxCostUsd === undefined ? "" : ` of $${slice.maxCostUsd.toFixed(2)}`}`;
  const tokens = `${spent.tokens.toLocaleString("en-US")}${slice.maxTokens === undefined ? "" : ` of ${slice.maxTokens.toLocaleString("en-US")}`} tokens`;
  return `${cost}, ${tokens}`;
}

/**
 * `rein status`'s step lines: a step on its own as before, and the members
 * of a group together under one line with its outcome and join rule, in the
 * order they were asked for, each with what it spent against its slice.
 */
export function stepLines(state: RunState): string[] {
  const lines: string[] = [];
  const shown = new Set<string>();
  const stepLine = (step: StepState) =>
    `${step.stepId} [${step.phase}] attempt ${step.attempt}: ${step.spec.title}${step.decision ? ` → ${step.decision}` : ""}`;
  for (const step of state.steps) {
    if (shown.has(step.stepId)) continue;
    const group = step.groupId === undefined ? undefined : state.groups?.find((candidate) => candidate.groupId === step.groupId);
    if (!group) {
      lines.push(`  ${stepLine(step)}`);
      continue;
    }
    const members = group.stepIds.flatMap((stepId) => state.steps.filter((candidate) => candidate.stepId === stepId));
    const of = group.parentStepId ? ` of ${group.parentStepId}` : "";
    lines.push(`  group ${group.groupId}${of} ${group.phase} (join ${joinText(group.join)}): ${group.stepIds.join(" | ")} side by side`);
    const width = Math.max(...members.map((member) => stepLine(member).length));
    for (const member of members) {
      shown.add(member.stepId);
      const { usage, spec } = member;
      const spent = {
        costUsd: usage.costUsd,
        tokens: usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens,
      };
      lines.push(`    ${stepLine(member).padEnd(width)}  ${spendText(spent, spec.budget)}`);
    }
  }
  return lines;
}
