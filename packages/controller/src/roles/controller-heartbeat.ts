import type { ReinRuntime } from "@rein/runtime";
import { PROCESS_SEEN_MS } from "../status-board/process-status-board.ts";

/**
 * How long a controller counts as seen after its last beat, the window in
 * which the queues view counts a role process; it beats four times in it.
 */
export const CONTROLLER_SEEN_SECONDS = PROCESS_SEEN_MS / 1000;
const BEAT_MS = PROCESS_SEEN_MS / 4;

/**
 * A running controller says so four times per `CONTROLLER_SEEN_SECONDS`
 * with one SET that expires after it, so `rein submit` can tell a person
 * when nothing will take their run.
 * Stopping leaves the key to expire: another controller may still be running.
 */
export function startControllerHeartbeat(runtime: ReinRuntime): { stop(): void } {
  const beat = () => {
    runtime.redis
      .set(runtime.keys.controllerSeen(), new Date().toISOString(), "EX", CONTROLLER_SEEN_SECONDS)
      .catch((error: unknown) => runtime.logger.warn({ err: error }, "controller heartbeat not written"));
  };
  beat();
  const timer = setInterval(beat, BEAT_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** Whether any controller on this prefix has beaten within the last `CONTROLLER_SEEN_SECONDS`. */
export async function controllerSeenRecently(runtime: ReinRuntime): Promise<boolean> {
  return (await runtime.redis.exists(runtime.keys.controllerSeen())) === 1;
}
