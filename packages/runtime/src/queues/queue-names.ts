export const QUEUE_NAMES = {
  control: "control",
  plan: "plan",
  step: "step",
  evaluate: "evaluate",
} as const;

export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];

/** The step queue of runs started under `build`: `step.<build>`; `step` for runs started under none. */
export function stepQueueName(build: string | undefined): string {
  return build === undefined ? QUEUE_NAMES.step : `${QUEUE_NAMES.step}.${build}`;
}

/**
 * Job ids derived from what the job is about, so that a controller that
 * crashes between writing state and enqueueing replays into duplicates the
 * queue drops. BullMQ refuses ':' in custom ids, hence '-' separators.
 */
export const jobIds = {
  plan: (runId: string, planNo: number) => `plan-${runId}-${planNo}`,
  step: (runId: string, stepId: string, attempt: number, resume = 0) =>
    resume === 0 ? `step-${runId}-${stepId}-${attempt}` : `step-${runId}-${stepId}-${attempt}-r${resume}`,
  evaluate: (runId: string, stepId: string, attempt: number) => `evaluate-${runId}-${stepId}-${attempt}`,
  context: (runId: string, stepId: string, attempt: number, resumes: number) => `context-${runId}-${stepId}-${attempt}-r${resumes}`,
  control: (eventId: string) => `control-${eventId}`,
  /** A step's `step.finished` event on the evaluate queue (ReinQueues.sendStepResult). */
  stepResult: (eventId: string) => `result-${eventId}`,
};

/** Ids of the control events a role sends with its job's result, derived from that job's id as job ids are. */
export const resultEventIds = {
  stepFinished: (stepJobId: string) => `finished-${stepJobId}`,
};
