import type { ReinRuntime } from "@rein/runtime";

/** How long a probe waits for Redis before it calls it unreachable (ioredis queues commands while it reconnects). */
const PROBE_TIMEOUT_MS = 2_000;

export interface Health {
  ok: boolean;
  redis: "up" | "down";
  /** The roles this process runs besides the API (`rein serve --role …`). */
  roles: readonly string[];
  error?: string;
}

/** `GET /healthz`: this process answers and Redis does. */
export async function checkHealth(runtime: ReinRuntime, roles: readonly string[]): Promise<Health> {
  const redis = await withinProbe(runtime.redis.ping());
  return redis === true ? { ok: true, redis: "up", roles } : { ok: false, redis: "down", roles, error: redis };
}

/** `GET /readyz`: healthy, and the queues' own connections are ready, so a submitted goal is taken. */
export async function checkReady(runtime: ReinRuntime, roles: readonly string[]): Promise<Health & { queues: "ready" | "not ready" }> {
  const health = await checkHealth(runtime, roles);
  if (!health.ok) return { ...health, queues: "not ready" };
  const queues = await withinProbe(Promise.all(runtime.queues.all().map((queue) => queue.waitUntilReady())));
  return queues === true ? { ...health, queues: "ready" } : { ...health, ok: false, queues: "not ready", error: queues };
}

/** True when `work` settles in time; else why not. */
async function withinProbe(work: Promise<unknown>): Promise<true | string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer from Redis within ${PROBE_TIMEOUT_MS} ms`), PROBE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([work.then(() => true as const), late]);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
    work.catch(() => undefined);
  }
}
