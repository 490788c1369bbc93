import type { TraceEvent } from "@rein/core";
import { text } from "./event-fields.ts";

interface AuditRow {
  seq: number;
  step: string;
  tool: string;
  decision: string;
  rule: string;
  actor: string;
  detail: string;
}

/**
 * Every permission and approval decision (and every refusal before the
 * policy was reached), with the rule that decided and who decided it: the
 * policy engine, a named person, or the clock when an approval expired.
 */
export function auditRows(events: readonly TraceEvent[]): AuditRow[] {
  const rows: AuditRow[] = [];
  for (const event of events) {
    const p = event.payload;
    const base = { seq: event.seq, step: event.stepId ?? "-", tool: text(p.tool ?? p.name, "-") };
    switch (event.kind) {
      case "permission.decided":
        rows.push({ ...base, decision: text(p.decision), rule: text(p.rule), actor: "policy", detail: text(p.reason, "") });
        break;
      case "tool.refused":
      case "tool.input_invalid":
        rows.push({ ...base, decision: "refused", rule: `runtime:${text(p.reason)}`, actor: "runtime", detail: list(p.allowed) });
        break;
      case "approval.requested":
      case "approval.reused":
        rows.push({ ...base, decision: "ask", rule: text(p.rule), actor: "policy", detail: `approval ${text(p.approvalId)} ${event.kind === "approval.reused" ? "reused" : "requested"}` });
        break;
      case "approval.decided":
        rows.push({ ...base, decision: text(p.decision), rule: `approval:${text(p.approvalId)}`, actor: text(p.approver, "unknown"), detail: text(p.reason ?? p.note, "") });
        break;
      case "approval.consumed":
        rows.push({ ...base, decision: "approved", rule: text(p.rule), actor: text(p.approver, "unknown"), detail: `approval ${text(p.approvalId)} used` });
        break;
      case "approval.refused":
        rows.push({
          ...base,
          decision: text(p.status),
          rule: text(p.rule),
          actor: p.status === "expired" ? "clock (expired)" : text(p.approver, "unknown"),
          detail: text(p.reason, ""),
        });
        break;
      case "approval.forged":
        rows.push({ ...base, decision: "refused", rule: `forged approval ${text(p.approvalId)}`, actor: "runtime", detail: text(p.problem) });
        break;
      case "approval.unavailable":
        rows.push({ ...base, decision: "deny", rule: text(p.rule), actor: "runtime", detail: "approval needed but no approval store" });
        break;
      case "packet.refused":
        rows.push({ ...base, decision: "refused", rule: "packet", actor: "worker", detail: text(p.reason) });
        break;
    }
  }
  return rows;
}

const list = (value: unknown): string => (Array.isArray(value) ? `allowed: ${value.join(", ")}` : "");

export function renderAudit(events: readonly TraceEvent[]): string {
  const rows = auditRows(events);
  if (rows.length === 0) return "no permission or approval decisions in this trace\n";
  const header = ["seq", "step", "tool", "decision", "rule", "actor", "detail"];
  const cells = rows.map((row) => [String(row.seq), row.step, row.tool, row.decision, row.rule, row.actor, row.detail]);
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((cell) => (cell[column] ?? "").length)));
  const format = (cell: string[]) =>
    cell
      .map((value, column) => (column === cell.length - 1 ? value : value.padEnd(widths[column] ?? 0)))
      .join("  ")
      .trimEnd();
  return `${[format(header), ...cells.map(format)].join("\n")}\n`;
}
