import type { TraceEvent } from "@rein/core";

/** Payloads are JsonObject; views read them defensively, an absent field prints as "?". */
export const text = (value: unknown, fallback = "?"): string =>
  value === undefined || value === null ? fallback : typeof value === "string" ? value : JSON.stringify(value);

export const list = (value: unknown): string[] => (Array.isArray(value) ? value.map((item) => text(item)) : []);

export const shortHash = (hash: unknown): string => (typeof hash === "string" ? `${hash.slice(0, 15)}…` : "-");

export const clip = (value: string, max: number): string => (value.length > max ? `${value.slice(0, max - 1)}…` : value);

/** A tool call is named by step, call id and index; call ids alone repeat across steps and attempts. */
export const callKeyOf = (event: TraceEvent): string => `${event.stepId ?? "-"}|${text(event.payload.callId)}|${text(event.payload.index)}`;

export const isRunEnd = (kind: string): boolean => ["run.done", "run.failed", "run.cancelled", "run.escalated"].includes(kind);
