import type { ControllerRuntime } from "@rein/runtime";
import { RunDeadlines } from "../control/run-deadlines.ts";

/** How often a controller looks for due deadlines: a run's wall budget is enforced within about this much. */
const POLL_MS = 1_000;
/** Deadlines fired per look; more due wait for the next. */
const PER_POLL = 500;

/**
 * Fires due run deadlines in a controller process: each due run is claimed
 * (ZREM, so of several controllers one fires it) and sent its `deadline`
 * event. One that could not be sent is put back to fire on the next look.
 */
export function startDeadlineLoop(runtime: ControllerRuntime): { stop(): Promise<void> } {
  const deadlines = new RunDeadlines(runtime);
  let firing: Promise<void> | undefined;
  const fire = async (runId: string) => {
    if (!(await deadlines.claim(runId))) return;
    try {
      await runtime.queues.sendControl({ type: "deadline", eventId: `deadline-${runId}`, runId });
    } catch (error) {
      await deadlines.schedule(runId, Date.now());
      throw error;
    }
  };
  const tick = () => {
    if (firing) return;
    firing = deadlines
      .due(Date.now(), PER_POLL)
      .then(async (runIds) => {
        await Promise.all(runIds.map(fire));
      })
      .catch((error: unknown) => runtime.logger.warn({ err: error }, "firing due run deadlines failed; the next look tries again"))
      .finally(() => {
        firing = undefined;
      });
  };
  const timer = setInterval(tick, POLL_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await firing;
    },
  };
}
