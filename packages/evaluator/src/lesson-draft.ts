import { idFrom } from "@rein/contracts";
import type { Lesson, VerdictDecision } from "@rein/contracts/run";
import type { StepEvaluateJob } from "@rein/contracts/messages";

/**
 * The lesson a verdict writes when it resolves an earlier failure of the
 * same step: an attempt after the first that ends `continue` or `done`.
 * What failed is the feedback the retry was sent with; what worked is this
 * attempt's summary and the calls it made that no failed attempt made.
 * The id is derived from run and step, so a redelivered job writes the same lesson.
 */
export function resolvedStepLesson(job: StepEvaluateJob, decision: VerdictDecision, now: Date): Lesson | undefined {
  if (job.attempt === 1 || (decision !== "continue" && decision !== "done")) return undefined;
  const tried = new Set(job.priorFingerprints.flat());
  const newCalls = job.result.toolCalls.filter((call) => !tried.has(call.fingerprint));
  const newTools = [...new Set(newCalls.map((call) => call.name))];
  const worked = [
    job.result.summary.trim() || "the step passed",
    newTools.length > 0 ? `(new actions: ${newTools.join(", ")})` : "(the same actions, after the feedback)",
  ].join(" ");
  return {
    schemaVersion: 1,
    lessonId: idFrom("lesson", `${job.runId}:${job.stepId}:resolved`),
    kind: "resolved_step",
    createdAt: now.toISOString(),
    runId: job.runId,
    stepId: job.stepId,
    signature: job.goal ? `${job.goal} — step: ${job.spec.title}` : job.spec.title,
    failed: `attempt ${job.attempt - 1} failed: ${job.feedback ?? "no feedback recorded"}`,
    worked: `attempt ${job.attempt}: ${worked}`,
    fingerprints: [...new Set([...job.priorFailedFingerprints, ...newCalls.map((call) => call.fingerprint)])],
  };
}
