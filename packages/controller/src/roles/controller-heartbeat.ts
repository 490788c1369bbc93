import type { ReinRuntime } from "@rein/runtime";

/** How long a controller counts as seen after its last beat; it beats four times in that window. */
export const CONTROLLER_SEEN_SECONDS = 60;
const BEAT_MS = (CONTROLLER_SEEN_SECONDS * 1000) / 4;

/**
 * A running controller says so every 15 s with one SET that expires after
 * 60 s, so `rein submit` can tell a person when nothing will take their run.
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

/** Whether any controller on this prefix has beaten within the last 60 s. */
export async function controllerSeenRecently(runtime: ReinRuntime): Promise<boolean> {
  return (await runtime.redis.exists(runtime.keys.controllerSeen())) === 1;
}
