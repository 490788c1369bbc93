import { z } from "zod";

/**
 * Why a lesson was written:
 * - `resolved_step`: a step failed or was retried, and a later attempt passed;
 * - `resolved_escalation`: a run escalated, a person replied, and the next step passed;
 * - `run_failed`: a run failed for good; `worked` is empty.
 */
export const LessonKind = z.enum(["resolved_step", "resolved_escalation", "run_failed"]);
export type LessonKind = z.infer<typeof LessonKind>;

/** What one run learned, stored in Redis and retrieved for similar goals. */
export const Lesson = z.object({
  schemaVersion: z.literal(1),
  lessonId: z.string().min(1),
  kind: LessonKind,
  createdAt: z.string(),
  runId: z.string(),
  stepId: z.string().optional(),
  /** The task in a line: the goal and the step, the text retrieval ranks on. */
  signature: z.string().min(1),
  failed: z.string().min(1),
  worked: z.string(),
  /** Action fingerprints of the calls involved, failing and working. */
  fingerprints: z.array(z.string()).default([]),
});
export type Lesson = z.infer<typeof Lesson>;

/** The one line the planner reads for a lesson. */
export function lessonText(lesson: Lesson): string {
  const worked = lesson.worked ? ` What worked: ${lesson.worked}` : " Nothing worked; the run failed.";
  return `For "${lesson.signature}": ${lesson.failed}.${worked}`;
}
