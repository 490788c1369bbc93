import type { Logger } from "@rein/guard";
import type { TraceEventInput } from "@rein/trace";

/**
 * The lifecycle lines a transition gives the log at info: a step dispatched,
 * a run ended or escalated. Read from the trace the transition wrote, so the
 * log says what the state says.
 */
export function logTransition(logger: Logger, trace: readonly TraceEventInput[]): void {
  for (const event of trace) {
    const { runId, stepId } = event;
    if (event.kind === "step.dispatched") {
      logger.info(
        { runId, stepId, attempt: event.payload.attempt, resume: event.payload.resume, title: event.payload.title },
        "step dispatched",
      );
    } else if (event.kind === "run.escalated") {
      logger.info({ runId, status: "escalated", reasons: event.payload.reasons }, "run escalated");
    } else if (event.kind === "run.done" || event.kind === "run.failed" || event.kind === "run.cancelled") {
      logger.info({ runId, status: event.kind.slice("run.".length), reason: event.payload.reason }, "run ended");
    }
  }
}
