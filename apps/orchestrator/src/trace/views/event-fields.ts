import type { CallTraceEvent, TraceEventOf, TypedTraceEvent } from "@rein/trace";

/** A field as a view prints it: an absent one as "?", a structured one as JSON. */
export const text = (value: unknown, fallback = "?"): string =>
  value === undefined || value === null ? fallback : typeof value === "string" ? value : JSON.stringify(value);

export const list = (value: unknown): string[] => (Array.isArray(value) ? value.map((item) => text(item)) : []);

export const shortHash = (hash: unknown): string => (typeof hash === "string" ? `${hash.slice(0, 15)}…` : "-");

export const clip = (value: string, max: number): string => (value.length > max ? `${value.slice(0, max - 1)}…` : value);

/** A tool call is named by step, call id and index; call ids alone repeat across steps and attempts. */
export const callKeyOf = (event: CallTraceEvent): string => `${event.stepId ?? "-"}|${event.payload.callId}|${event.payload.index}`;

const RUN_END_KINDS = new Set<string>(["run.done", "run.failed", "run.cancelled", "run.escalated"]);

/** The event that ended a run. */
export type RunEndEvent = TraceEventOf<"run.done" | "run.failed" | "run.cancelled" | "run.escalated">;

export const isRunEnd = (event: TypedTraceEvent): event is RunEndEvent => RUN_END_KINDS.has(event.kind);

/** Why a run ended: its reason, or an escalation's reasons joined. */
export const endReasonOf = (event: RunEndEvent): string =>
  event.kind === "run.escalated" ? event.payload.reasons.join("; ") : event.payload.reason;

/**
 * "exit 1" or "killed by SIGKILL" for a command that did not exit cleanly,
 * from a `tool.executed` payload: its `exitCode` / `killedBy`, else the
 * first line of its rendered output (`exit code: …`). Undefined for a clean
 * exit and for tools that are not commands.
 */
export function failedExitOf(payload: Readonly<Record<string, unknown>>): string | undefined {
  if (typeof payload.killedBy === "string") return `killed by ${payload.killedBy}`;
  if (typeof payload.exitCode === "number") return payload.exitCode === 0 ? undefined : `exit ${payload.exitCode}`;
  if (typeof payload.output !== "string") return undefined;
  const match = /^exit code: (\d+|none)(?: \(killed by (\w+))?/.exec(payload.output);
  if (!match) return undefined;
  if (match[2]) return `killed by ${match[2]}`;
  return match[1] === "0" ? undefined : `exit ${match[1]}`;
}
