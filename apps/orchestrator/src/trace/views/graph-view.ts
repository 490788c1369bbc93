import type { TypedTraceEvent } from "@rein/trace";
import { endReasonOf, isRunEnd, text } from "./event-fields.ts";

interface StepNode {
  stepId: string;
  parentStepId: string | null;
  title: string;
  attempts: Map<number, string[]>;
  children: StepNode[];
}

/**
 * An ASCII tree: the run, its steps in dispatch order with delegated
 * children (parentStepId) under their parent, each attempt's tool calls
 * and verdict. Derived from the trace alone.
 */
export function renderGraph(events: readonly TypedTraceEvent[]): string {
  const steps = new Map<string, StepNode>();
  const attemptOf = new Map<string, number>();
  let end = "running";
  const runId = events[0]?.runId ?? "?";
  const lineFor = (event: TypedTraceEvent): string[] | undefined => {
    if (!event.stepId) return undefined;
    return steps.get(event.stepId)?.attempts.get(attemptOf.get(event.stepId) ?? 1);
  };
  for (const event of events) {
    if (event.kind === "step.dispatched" && event.stepId) {
      const p = event.payload;
      let node = steps.get(event.stepId);
      if (!node) {
        node = { stepId: event.stepId, parentStepId: event.parentStepId, title: text(p.title), attempts: new Map(), children: [] };
        steps.set(event.stepId, node);
      }
      const attempt = p.attempt;
      attemptOf.set(event.stepId, attempt);
      if (!node.attempts.has(attempt)) node.attempts.set(attempt, []);
      if (Number(p.resume) > 0) node.attempts.get(attempt)?.push(`resumed (${text(p.resume)})`);
    } else if (event.kind === "tool.result") {
      const p = event.payload;
      lineFor(event)?.push(`⚙ #${text(p.index)} ${text(p.name)} → ${text(p.status)}`);
    } else if (event.kind === "step.suspended") {
      const p = event.payload;
      lineFor(event)?.push(`⏸ suspended: ${text(p.reason)}${p.tool ? ` (${text(p.tool)})` : ""}`);
    } else if (event.kind === "verdict.ready") {
      lineFor(event)?.push(`⚖ ${text(event.payload.decision)}`);
    } else if (isRunEnd(event)) {
      end = `${event.kind.split(".")[1]}: ${text(endReasonOf(event))}`;
    }
  }
  const roots: StepNode[] = [];
  for (const node of steps.values()) {
    const parent = node.parentStepId ? steps.get(node.parentStepId) : undefined;
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  const lines = [`run ${runId} (${end})`];
  const draw = (node: StepNode, prefix: string, last: boolean) => {
    lines.push(
      `${prefix}${last ? "└─ " : "├─ "}${node.stepId} "${node.title}"${node.parentStepId ? ` ⇐ delegated by ${node.parentStepId}` : ""}`,
    );
    const inner = `${prefix}${last ? "   " : "│  "}`;
    const attempts = [...node.attempts.entries()];
    const items: { label: string; children: string[] }[] = attempts.map(([attempt, calls]) => ({
      label: `attempt ${attempt}`,
      children: calls,
    }));
    const total = items.length + node.children.length;
    items.forEach((item, index) => {
      const lastItem = index === total - 1;
      lines.push(`${inner}${lastItem ? "└─ " : "├─ "}${item.label}`);
      item.children.forEach((child, childIndex) => {
        lines.push(`${inner}${lastItem ? "   " : "│  "}${childIndex === item.children.length - 1 ? "└─ " : "├─ "}${child}`);
      });
    });
    node.children.forEach((child, index) => {
      draw(child, inner, items.length + index === total - 1);
    });
  };
  roots.forEach((root, index) => {
    draw(root, "", index === roots.length - 1);
  });
  return `${lines.join("\n")}\n`;
}
