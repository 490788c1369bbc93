import { presentUntrusted } from "./present-untrusted.ts";
import type { Redactor } from "@rein/guard";

/** Bytes of an evidence summary a prompt shows: a summary is one line. */
const EVIDENCE_SUMMARY_BYTES = 600;
/** Bytes of a lesson a prompt shows: a lesson is a few lines. */
const LESSON_BYTES = 1_000;

export interface PresentEvidenceOptions {
  /** What the list is, as its preamble names it: "Evidence (id: summary)", "Run evidence (id: summary)". */
  source: string;
  redactor?: Redactor | undefined;
  /** Bytes shown per summary. @defaultValue 600 */
  maxBytes?: number;
}

/**
 * Evidence as every role shows it to a model: one line per observation, its
 * id the runtime's and its summary outside text (a model wrote it after
 * reading tool output), fenced through presentUntrusted under one preamble.
 */
export function presentEvidence(evidence: readonly { id: string; summary: string }[], options: PresentEvidenceOptions): string {
  const entries = evidence.map((entry) => ({ label: entry.id, text: entry.summary }));
  return presentUntrusted(entries, {
    source: options.source,
    redactor: options.redactor,
    maxBytes: options.maxBytes ?? EVIDENCE_SUMMARY_BYTES,
    singleLine: true,
  }).text;
}

/** Lessons from earlier runs as the planner and a worker are shown them: another run wrote them, so they are outside text too. */
export function presentLessons(lessons: readonly { id: string; text: string }[], redactor?: Redactor): string {
  const entries = lessons.map((lesson) => ({ label: lesson.id, text: lesson.text }));
  return presentUntrusted(entries, { source: "Lessons from earlier runs", redactor, maxBytes: LESSON_BYTES, singleLine: true }).text;
}
