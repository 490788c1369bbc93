import { randomUUID } from "node:crypto";
import type { ControllerRuntime } from "@rein/runtime";
import { sweepLostJobs } from "../control/redrive-sweep.ts";

/**
 * Runs the re-drive sweep every `redrive.intervalMs` in a controller
 * process; of all the controllers on a prefix, the one that takes the lease
 * sweeps. One sweep at a time per process: a tick that finds the last one
 * still going skips.
 */
export function startRedriveLoop(runtime: ControllerRuntime): { stop(): Promise<void> } {
  const { redrive } = runtime.config;
  if (!redrive.enabled) return { stop: async () => undefined };
  const holder = randomUUID();
  let sweeping: Promise<void> | undefined;
  const tick = () => {
    if (sweeping) return;
    sweeping = sweepLostJobs(runtime, { holder })
      .then((report) => {
        if (report.lost.length > 0)
          runtime.logger.warn({ lost: report.lost }, "jobs gone from their queues reported to the controller, to be sent again");
      })
      .catch((error: unknown) => runtime.logger.warn({ err: error }, "re-drive sweep failed; the next one tries again"))
      .finally(() => {
        sweeping = undefined;
      });
  };
  const timer = setInterval(tick, redrive.intervalMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await sweeping;
    },
  };
}
