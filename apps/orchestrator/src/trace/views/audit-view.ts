import { isCallTraceEvent, type TypedTraceEvent } from "@rein/trace";
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
export function auditRows(events: readonly TypedTraceEvent[]): AuditRow[] {
  const rows: AuditRow[] = [];
  for (const event of events) {
    const base = {
      seq: event.seq,
      step: event.stepId ?? "-",
      tool: isCallTraceEvent(event) || event.kind === "approval.decided" ? event.payload.tool : "-",
    };
    switch (event.kind) {
      case "permission.decided": {
        const p = event.payload;
        rows.push({ ...base, decision: p.decision, rule: p.rule, actor: "policy", detail: p.reason });
        break;
      }
      case "tool.refused":
        rows.push({
          ...base,
          decision: "refused",
          rule: `runtime:${event.payload.reason}`,
          actor: "runtime",
          detail: list(event.payload.allowed),
        });
        break;
      case "tool.input_invalid":
        rows.push({ ...base, decision: "refused", rule: `runtime:${event.payload.reason}`, actor: "runtime", detail: "" });
        break;
      case "approval.requested":
      case "approval.reused":
        rows.push({
          ...base,
          decision: "ask",
          rule: event.payload.rule,
          actor: "policy",
          detail: `approval ${event.payload.approvalId} ${event.kind === "approval.reused" ? "reused" : "requested"}`,
        });
        break;
      case "approval.decided": {
        const p = event.payload;
        rows.push({
          ...base,
          decision: p.decision,
          rule: `approval:${p.approvalId}`,
          actor: text(p.approver, "unknown"),
          detail: text(p.reason ?? p.note, ""),
        });
        break;
      }
      case "approval.consumed": {
        const p = event.payload;
        rows.push({
          ...base,
          decision: "approved",
          rule: p.rule,
          actor: text(p.approver, "unknown"),
          detail: `approval ${p.approvalId} used`,
        });
        break;
      }
      case "approval.refused": {
        const p = event.payload;
        rows.push({
          ...base,
          decision: p.status,
          rule: p.rule,
          actor: p.status === "expired" ? "clock (expired)" : text(p.approver, "unknown"),
          detail: text(p.reason, ""),
        });
        break;
      }
      case "approval.forged":
        rows.push({
          ...base,
          decision: "refused",
          rule: `forged approval ${event.payload.approvalId}`,
          actor: "runtime",
          detail: event.payload.problem,
        });
        break;
      case "approval.unavailable":
        rows.push({
          ...base,
          decision: "deny",
          rule: event.payload.rule,
          actor: "runtime",
          detail: "approval needed but no approval store",
        });
        break;
      case "packet.refused":
        rows.push({ ...base, decision: "refused", rule: "packet", actor: "worker", detail: event.payload.reason });
        break;
    }
  }
  return rows;
}

const list = (allowed: readonly string[] | undefined): string => (allowed ? `allowed: ${allowed.join(", ")}` : "");

export function renderAudit(events: readonly TypedTraceEvent[]): string {
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
