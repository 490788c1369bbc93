/**
 * Awaits `work`, or rejects after `timeoutMs` with an error naming `what`.
 * The suite's own Redis connections retry a command until Redis answers
 * (BullMQ's `maxRetriesPerRequest: null`), which is what it wants across a
 * Redis restart, but a Redis that never comes back must end the suite with
 * a reason, not hang it.
 */
export async function within<T>(what: string, timeoutMs: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`chaos: ${what} did not finish within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Bounds for the suite's own waits on Redis: one read or write, and a whole batch of them. */
export const REDIS_WAIT_MS = 30_000;
export const REDIS_BATCH_WAIT_MS = 120_000;
