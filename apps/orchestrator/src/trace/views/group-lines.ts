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
  const spent = spentOf(stepId, memory);
  const slice = JSON.parse(memory.get(`slice:${stepId}`) ?? "{}") as { maxCostUsd?: number; maxTokens?: number };
  const cost = `$${spent.costUsd.toFixed(4)}${slice.maxCostUsd === undefined ? "" : ` of $${slice.maxCostUsd.toFixed(2)}`}`;
  const tokens = `${spent.tokens.toLocaleString("en-US")}${slice.maxTokens === undefined ? "" : ` of ${slice.maxTokens.toLocaleString("en-US")}`} tokens`;
  return `${cost}, ${tokens}`;
}
