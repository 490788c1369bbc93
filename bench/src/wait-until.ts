import { setTimeout as delay } from "node:timers/promises";

/** Polls `condition` until it holds; fails after `timeoutMs` so a stuck bench says so instead of hanging. */
export async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 60_000, intervalMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`bench: a condition did not hold within ${timeoutMs} ms`);
    await delay(intervalMs);
  }
}
